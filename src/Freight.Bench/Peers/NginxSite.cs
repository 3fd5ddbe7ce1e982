namespace Freight.Bench.Peers;

/// <summary><see cref="NginxSiteOptions"/> resolved to full paths, plus the files nginx keeps in the work directory.</summary>
internal sealed record NginxSite(string RootDirectory, string WorkDirectory, string? PutDirectory, string? PutTempDirectory, string? TlsCertificatePath = null, string? TlsKeyPath = null)
{
    /// <summary><see cref="NginxSiteOptions.WorkerProcesses"/>: null for one process without a master.</summary>
    public int? WorkerProcesses { get; init; }

    public bool Tls => TlsCertificatePath is not null;

    public string ConfigPath => Path.Combine(WorkDirectory, "nginx.conf");

    public string PidPath => Path.Combine(WorkDirectory, "nginx.pid");

    public string ErrorLogPath => Path.Combine(WorkDirectory, "error.log");
}
