namespace Freight.Server.Hosting;

/// <summary>
/// Options of <c>freight serve</c>, bound from the <c>Freight</c> section: appsettings.json,
/// then <c>FREIGHT_</c> environment variables (<c>FREIGHT_MaxRequestBodyBytes=…</c>,
/// <c>__</c> for nesting), then the command line (highest priority).
/// </summary>
public sealed class FreightServerOptions
{
    /// <summary>Configuration section name.</summary>
    public const string SectionName = "Freight";

    /// <summary>Semicolon-separated http://, https:// and h2c:// (cleartext HTTP/2) addresses; port 0 picks a free port.</summary>
    public string Urls { get; set; } = "http://127.0.0.1:5080";

    /// <summary>Where stored files and lab payload files live.</summary>
    public string DataDirectory { get; set; } = "freight-data";

    /// <summary>
    /// Largest request body Kestrel accepts (413 above it). 4 GiB by default so the lab's 1 GiB bodies,
    /// multipart overhead included, pass; set it to what your service needs.
    /// </summary>
    public long MaxRequestBodyBytes { get; set; } = 4L * 1024 * 1024 * 1024;

    /// <summary>
    /// Serve the lab (<c>/lab/…</c>: the bench's endpoints, which generate gigabytes, write files and hold threads as
    /// asked) and write its files into the data directory at start. On by default, for the bench; a server that only
    /// moves files turns it off: no <c>/lab</c> route, nothing of the lab's on disk.
    /// </summary>
    public bool Lab { get; set; } = true;

    /// <summary>
    /// Reverse proxies whose <c>X-Forwarded-For</c> and <c>X-Forwarded-Proto</c> serve believes: addresses
    /// (<c>10.0.0.5</c>) or networks (<c>10.0.0.0/8</c>). Behind a proxy every request comes from the proxy's address,
    /// so the per-client limits (uploads in flight, unfinished tus uploads) would count all its clients as one client,
    /// and the logs would name the proxy. Empty (default): the headers are ignored, since any client can send them.
    /// </summary>
    public List<string> TrustedProxies { get; set; } = [];

    /// <summary>
    /// Origins whose pages may use the files API and tus from a browser (CORS: <c>https://app.example.com</c>, or
    /// <c>*</c> for any): their requests may send tokens, digests and tus headers, and read ETag, Location and
    /// Upload-Offset. Each is taken as browsers write origins (<c>HTTPS://App.example.com:443/</c> is
    /// <c>https://app.example.com</c>). Empty (default): no CORS headers, so a browser keeps other origins' pages out.
    /// </summary>
    public List<string> CorsOrigins { get; set; } = [];

    /// <summary>Largest payload a lab endpoint generates (the <c>size</c> query). 4 GiB by default.</summary>
    public long MaxLabPayloadBytes { get; set; } = 4L * 1024 * 1024 * 1024;

    /// <summary>fsync stored files before they become visible.</summary>
    public bool FlushToDisk { get; set; }

    /// <summary>
    /// Block size of the memory pool Kestrel's socket transport receives into and sends from; 0 keeps
    /// Kestrel's stock pool (4 KiB blocks, so one recv() per 4 KiB). 64 KiB cut the server's CPU per GiB uploaded
    /// from ~1.6 s to ~0.4 s against the stock pool (docs/results/2026-11-21-transfer.md). 256 KiB by default since
    /// 2026-11-28: a 1 GiB PUT cost the server less than with 64 KiB in 18 of 19 paired bench rounds over two days
    /// (~10 % less; `freight bench --suite files --filter put --size 1073741824 --runs 10`), downloads, TLS and small
    /// files unchanged (docs/results/2026-11-28-transport-blocks.md). 1 MiB cut a PUT's CPU by a third when the
    /// client's bytes are always waiting (a sendfile sender, 10 of 10 paired rounds), but the pool's 64 MiB budget
    /// then keeps only 64 free blocks: at 256 connections static files allocated 266–308 KiB a response, with 20–111
    /// gen 2 GCs a row (`freight bench --suite static --full --filter static/freight`;
    /// docs/results/2026-11-28-mib-blocks.md). <see cref="TransportBulkBlockBytes"/> takes that gain without the churn.
    /// </summary>
    public int TransportBlockBytes { get; set; } = 256 * 1024;

    /// <summary>
    /// Size of the transport pool's bulk blocks, up to 4 MiB; 0, or no more than <see cref="TransportBlockBytes"/>:
    /// none (and none with Kestrel's stock pool). Up to <see cref="TransportBulkBlocks"/> of them exist, each going to
    /// whoever rents while one is free, so a few busy connections receive a whole bulk block at a time while the rest
    /// of the blocks stay <see cref="TransportBlockBytes"/>. 1 MiB × 32 by default since 2026-11-28: a 1 GiB PUT from a
    /// client sending by <c>sendfile</c> cost the server 0.62 s/GiB against 1.15 with 256 KiB blocks alone (lower in
    /// 10 of 10 paired rounds); the bench's files/put, transfer, TLS, HTTP/2 and static rows read the same, and at 256
    /// connections static responses allocated 0.35–2.9 KiB each as before, where 1 MiB blocks for every connection
    /// churned the pool (docs/results/2026-11-28-bulk-blocks.md).
    /// </summary>
    public int TransportBulkBlockBytes { get; set; } = 1024 * 1024;

    /// <summary>
    /// How many bulk blocks (<see cref="TransportBulkBlockBytes"/>) the transport's pool holds at most. They are kept
    /// for reuse once allocated: with the defaults, 32 MiB besides the 64 MiB of free blocks the pool may keep (Kestrel
    /// makes a pool for each listening address).
    /// </summary>
    public int TransportBulkBlocks { get; set; } = 32;

    /// <summary>
    /// Kestrel's <c>SocketTransportOptions.UnsafePreferInlineScheduling</c>: a request's code resumes on the thread that
    /// received its bytes, and a response's flush sends on the thread that wrote it, instead of each hand-off being
    /// queued to another thread-pool thread. On cleartext HTTP/1.1 with <see cref="SendFile"/> on, Freight's own send
    /// loop sends the responses and keeps its hand-off (run inline it cost more:
    /// docs/results/2026-11-27-request-overhead.md), so there the option moves the receive side only.
    /// "Unsafe" because application code then runs on the transport's threads;
    /// on Linux those are thread-pool threads unless DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS=1 moves socket
    /// completions onto the epoll thread. On the idle 2-core machine a 1 GiB files-API PUT with curl cost the server
    /// 0.87–1.03 s/GiB with it against 0.96–1.15 without (8 alternating rounds, lower in 7); sendfile GETs and small
    /// files moved within their noise (docs/results/2026-11-27-inline-scheduling.md). Off by default: with it on, the
    /// slow-client download test (a client reading 100 KiB/s must not be cut) failed once in four runs of the whole
    /// server suite, and until that is understood, a slow client's safety under load outweighs a tenth of an
    /// upload's CPU.
    /// </summary>
    public bool InlineScheduling { get; set; }

    /// <summary>
    /// Send file bodies over 64 KiB (open files on disk, not cached) of cleartext HTTP/1.1 responses with sendfile(2),
    /// the bytes never copied into the process; HTTPS and HTTP/2 use the copying path whatever this says. On Linux
    /// x86-64/arm64 only (elsewhere a no-op). On by default: for 1 GiB GETs it cut the server's CPU per GiB from
    /// 0.47–0.61 s to 0.18–0.26 s (curl client, /proc utime+stime, loaded machine; docs/results/2026-11-25-sendfile.md).
    /// </summary>
    public bool SendFile { get; set; } = true;
    /// <summary>TLS on https:// addresses: the cipher order (<c>Tls:PreferAes128Gcm</c>) and the send path (<c>Tls:SendRecordsOnSocket</c>).</summary>
    public Freight.Transport.FreightTlsOptions Tls { get; set; } = new();

    /// <summary>HTTP/2 windows and frame size (<c>Http2:InitialConnectionWindowBytes</c>, …), on https:// and h2c:// addresses.</summary>
    public Http2Options Http2 { get; set; } = new();

    /// <summary>What Freight's download path keeps per file (small files whole, header values for all).</summary>
    public Freight.Downloads.FileCacheOptions FileCache { get; set; } = new();

    /// <summary>
    /// The files API's store and directory. Its other options (<c>Freight:Files:*</c>: tokens, limits) are the library's
    /// <see cref="Freight.AspNetCore.Files.FilesOptions"/>, bound and validated by <c>AddFreightFiles</c>; those of the
    /// bucket (<c>Freight:S3:*</c>) by <c>AddFreightS3Store</c>.
    /// </summary>
    public ServeFilesOptions Files { get; set; } = new();

    /// <summary>
    /// Where unfinished tus uploads wait on disk. Its other options (<c>Freight:Tus:*</c>) are the library's
    /// <see cref="Freight.AspNetCore.Tus.TusOptions"/>, bound and validated by <c>AddFreightTus</c>.
    /// </summary>
    public ServeTusOptions Tus { get; set; } = new();

    /// <summary>Limits of Freight's multipart parser.</summary>
    public MultipartOptions Multipart { get; set; } = new();

    /// <summary>
    /// Stop when standard input reaches its end. Set by the bench for the servers it starts, so a server
    /// never outlives the process that owns its stdin pipe, even one that was killed.
    /// </summary>
    public bool StopWhenInputCloses { get; set; }

    /// <summary>
    /// How long a stop (SIGTERM, Ctrl+C) waits for requests in flight before Kestrel resets their connections: the
    /// host's <c>HostOptions.ShutdownTimeout</c>, 30 s as the host's default. Uploads still running 2 s before it ends
    /// are cut and answered 503 (docs/server.md, "Stopping").
    /// </summary>
    public TimeSpan ShutdownTimeout { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>The file-system store's root in effect: <see cref="ServeFilesOptions.Directory"/>, or <c>files</c> under the data directory.</summary>
    public string FilesDirectory => string.IsNullOrEmpty(Files.Directory) ? Path.Combine(DataDirectory, "files") : Files.Directory;

    /// <summary>Where the file-system store keeps unfinished tus uploads: <see cref="ServeTusOptions.Directory"/>, or <c>tus</c> under the data directory.</summary>
    public string TusDirectory => string.IsNullOrEmpty(Tus.Directory) ? Path.Combine(DataDirectory, "tus") : Tus.Directory;

    /// <summary>Returns every problem with these options, in words an operator can act on.</summary>
    public IReadOnlyList<string> Validate()
    {
        var errors = new List<string>();
        if (string.IsNullOrWhiteSpace(Urls))
        {
            errors.Add("Freight:Urls is empty: give at least one address, e.g. --urls http://127.0.0.1:0");
        }
        else
        {
            foreach (var url in ListenAddress.SplitUrls(Urls))
            {
                if (!ListenAddress.TryParse(url, out _, out var error))
                {
                    errors.Add($"Freight:Urls has '{url}': {error}");
                }
            }
        }

        if (string.IsNullOrWhiteSpace(DataDirectory))
        {
            errors.Add("Freight:DataDirectory is empty: give a directory the server may write to.");
        }

        if (MaxRequestBodyBytes < 1)
        {
            errors.Add($"Freight:MaxRequestBodyBytes is {MaxRequestBodyBytes}: it must be at least 1.");
        }

        if (MaxLabPayloadBytes < 1)
        {
            errors.Add($"Freight:MaxLabPayloadBytes is {MaxLabPayloadBytes}: it must be at least 1.");
        }

        if (TransportBlockBytes != 0 && TransportBlockBytes is < 4096 or > 1024 * 1024)
        {
            errors.Add($"Freight:TransportBlockBytes is {TransportBlockBytes}: use 0 (Kestrel's stock pool) or 4096 to 1048576.");
        }

        if (TransportBulkBlockBytes is < 0 or > 4 * 1024 * 1024)
        {
            errors.Add($"Freight:TransportBulkBlockBytes is {TransportBulkBlockBytes}: use 0 (none) to 4194304.");
        }

        if (TransportBulkBlocks < 0)
        {
            errors.Add($"Freight:TransportBulkBlocks is {TransportBulkBlocks}: it must be at least 0.");
        }

        if (ShutdownTimeout < TimeSpan.Zero)
        {
            errors.Add($"Freight:ShutdownTimeout is {ShutdownTimeout}: use 0 or more, e.g. 00:00:30 (30 s).");
        }

        if (FileCache.MaxCachedFileBytes < 0 || FileCache.MaxCachedBytes < 0 || FileCache.MaxEntries < 1 || FileCache.RevalidateAfter < TimeSpan.Zero || FileCache.MaxOpenFiles < 0)
        {
            errors.Add("Freight:FileCache needs MaxCachedFileBytes ≥ 0, MaxCachedBytes ≥ 0, MaxEntries ≥ 1, RevalidateAfter ≥ 0 and MaxOpenFiles ≥ 0.");
        }

        for (var i = 0; i < CorsOrigins.Count; i++)
        {
            if (CorsOrigin.Problem(CorsOrigins[i]) is { } problem)
            {
                errors.Add($"Freight:CorsOrigins:{i} is '{CorsOrigins[i]}': {problem}");
            }
        }

        for (var i = 0; i < TrustedProxies.Count; i++)
        {
            if (ForwardedHeaders.TryParseProxy(TrustedProxies[i]) is null)
            {
                errors.Add($"Freight:TrustedProxies:{i} is '{TrustedProxies[i]}': give an address (10.0.0.5) or a network (10.0.0.0/8).");
            }
        }

        Http2.Validate(errors);
        Multipart.Validate(errors);
        if (!Files.IsMemoryStore && !Files.IsS3Store && !Files.Store.Equals("FileSystem", StringComparison.OrdinalIgnoreCase))
        {
            errors.Add($"Freight:Files:Store is '{Files.Store}': use FileSystem, Memory or S3.");
        }

        return errors;
    }
}

/// <summary>Which store <c>freight serve</c> registers for the files API and tus (<c>Freight:Files:Store</c>, <c>Freight:Files:Directory</c>).</summary>
public sealed class ServeFilesOptions
{
    /// <summary>
    /// <c>FileSystem</c> (default: <c>{DataDirectory}/files</c>), <c>Memory</c>, or <c>S3</c> (a bucket, <c>Freight:S3</c>;
    /// tus uploads wait there too, so any node can continue them). Case-insensitive.
    /// </summary>
    public string Store { get; set; } = "FileSystem";

    public bool IsMemoryStore => Store.Equals("Memory", StringComparison.OrdinalIgnoreCase);

    public bool IsS3Store => Store.Equals("S3", StringComparison.OrdinalIgnoreCase);

    /// <summary>The file-system store's root; empty: <c>files</c> under the data directory.</summary>
    public string Directory { get; set; } = "";
}

/// <summary>Where <c>freight serve</c>'s file-system store keeps unfinished tus uploads (<c>Freight:Tus:Directory</c>).</summary>
public sealed class ServeTusOptions
{
    /// <summary>Where unfinished uploads live with the file-system store; empty: <c>tus</c> under the data directory.</summary>
    public string Directory { get; set; } = "";
}
