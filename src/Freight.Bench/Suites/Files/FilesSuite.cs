namespace Freight.Bench.Suites.Files;

/// <summary>
/// <c>--suite files</c>: the files API's PUT and GET of 20 MiB and 1 GiB (stored on disk, read back from disk)
/// beside nginx doing the same (WebDAV PUT, sendfile GET) and the lab's raw upload/download paths, same
/// client, same bytes, interleaved. With <c>--store s3</c> the files API stores in a Ceph RGW instead, beside
/// the same client talking to that RGW directly (<c>peer/s3-direct-put</c>, <c>peer/s3-direct-get</c>); the
/// disk rows (nginx, lab) are left out. On disk, the PUT rows run twice: once with the suite's HttpClient, which copies
/// the body from memory, and once with a client that sends it from a file by sendfile(2) and copies nothing
/// (<c>files/put-sendfile</c>, <c>peer/nginx-put-sendfile</c>), whose bytes are always waiting at the server.
/// </summary>
public static class FilesSuite
{
    public const string Name = "files";

    public const string Put = "files/put";
    public const string Get = "files/get";
    public const string NginxPut = "peer/nginx-put";
    public const string PutSendFile = "files/put-sendfile";
    public const string NginxPutSendFile = "peer/nginx-put-sendfile";
    public const string NginxGet = "peer/nginx-get";
    public const string LabUpload = "upload/freight";
    public const string LabDownload = "download/freight";
    public const string S3DirectPut = "peer/s3-direct-put";
    public const string S3DirectGet = "peer/s3-direct-get";

    /// <summary><c>--store fs</c> (the default): the embedded server's file-system store.</summary>
    public const string FileSystemStore = "fs";

    /// <summary><c>--store s3</c>: the embedded server's S3 store, on an RGW the bench starts.</summary>
    public const string S3Store = "s3";

    /// <summary>Every store --store accepts.</summary>
    public static readonly IReadOnlyList<string> Stores = [FileSystemStore, S3Store];

    /// <summary>
    /// <paramref name="full"/>: 20 MiB (study 1's payload) and 1 GiB (the large file). Otherwise the size the
    /// goals are stated at, 1 GiB alone (the default run); --quick: 256 MiB alone, or 20 MiB on S3 (RGW's memstore
    /// holds every object in RAM at ~2.4× its size). S3 is opt-in (--store s3): without --quick it keeps both sizes.
    /// </summary>
    public static IReadOnlyList<long> Sizes(bool quick, string store = FileSystemStore, bool full = true) => (quick, store, full) switch
    {
        (true, S3Store, _) => [20L << 20],
        (true, _, _) => [256L << 20],
        (false, FileSystemStore, false) => [1L << 30],
        _ => [20L << 20, 1L << 30],
    };

    public static IReadOnlyList<FilesScenario> Create(bool quick, string store = FileSystemStore, bool full = true)
    {
        string[] ids = store == S3Store
            ? [Put, S3DirectPut, Get, S3DirectGet]
            : [Put, NginxPut, PutSendFile, NginxPutSendFile, LabUpload, Get, NginxGet, LabDownload];
        var sizes = Sizes(quick, store, full);
        var scenarios = sizes.SelectMany(size => ids.Select(id => new FilesScenario(id, size, store))).ToList();

        // The A/A control, last in each pass: files/get at the goals' size. Its noise is the goal rows' (one large
        // transfer a run through the API and the store), and a GET costs less than a PUT of the same size (no disk
        // write, and at the largest size a run is one transfer, so the faster direction is the cheaper copy).
        scenarios.Add(new FilesScenario(Get, sizes[^1], store, AaCopy: true));
        return scenarios;
    }
}
