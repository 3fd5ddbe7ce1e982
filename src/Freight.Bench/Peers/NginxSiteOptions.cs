namespace Freight.Bench.Peers;

/// <summary>What <see cref="Nginx.StartAsync"/> serves and where nginx keeps its own files.</summary>
public sealed record NginxSiteOptions
{
    /// <summary>Served at "/": GET and HEAD with Content-Length, ETag, Last-Modified and ranges, by sendfile. Must exist.</summary>
    public required string RootDirectory { get; init; }

    /// <summary>
    /// nginx's own files: nginx.conf, nginx.pid, error.log and every *_temp_path, so it never touches
    /// /var/lib/nginx or /var/log/nginx. Created when missing.
    /// </summary>
    public required string WorkDirectory { get; init; }

    /// <summary>
    /// Adds WebDAV PUT at <c>/dav/</c>: <c>PUT /dav/a/b.bin</c> writes <see cref="PutDirectory"/>/a/b.bin
    /// (intermediate directories created, no body size limit). nginx streams the body to a temporary file
    /// in <see cref="PutDirectory"/>/.nginx-put-temp (same file system, so completing a PUT is a rename) and
    /// answers 201 Created, or 204 when it replaced a file. Needs nginx built with the dav module (Debian's is).
    /// A <c>dav</c> folder under <see cref="RootDirectory"/> is hidden while this is on.
    /// </summary>
    public bool EnableWebDavPut { get; init; }

    /// <summary>
    /// PEM certificate and key files: nginx then speaks HTTPS only (TLS 1.3 and 1.2, HTTP/1.1) on its port, with
    /// OpenSSL's defaults otherwise (16 KiB records, <c>ssl_buffer_size 16k</c>). Both or neither.
    /// </summary>
    public string? TlsCertificatePath { get; init; }

    /// <summary>The private key of <see cref="TlsCertificatePath"/>, PEM.</summary>
    public string? TlsKeyPath { get; init; }

    /// <summary>Where <see cref="EnableWebDavPut"/> writes; null: <see cref="WorkDirectory"/>/put. Created when missing.</summary>
    public string? PutDirectory { get; init; }

    /// <summary>
    /// Null (the bench's peer): one process, no master. A number: nginx as it runs in production, a master and this many
    /// worker processes, which inherit its listening socket and serve; <see cref="NginxServer.ProcessId"/> is the
    /// master's and <see cref="NginxServer.WorkerProcessIds"/> lists the workers. As root the workers stay root (they
    /// would switch to nobody, who cannot read a private temporary directory).
    /// </summary>
    public int? WorkerProcesses { get; init; }
}

