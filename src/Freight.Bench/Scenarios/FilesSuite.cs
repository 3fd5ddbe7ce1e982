namespace Freight.Bench.Scenarios;

/// <summary>
/// <c>--suite files</c>: the files API's PUT and GET of 20 MiB and 1 GiB (stored on disk, read back from disk)
/// beside nginx doing the same (WebDAV PUT, sendfile GET) and the lab's raw upload/download paths, same
/// client, same bytes, interleaved.
/// </summary>
public static class FilesSuite
{
    public const string Name = "files";

    public const string Put = "files/put";
    public const string Get = "files/get";
    public const string NginxPut = "peer/nginx-put";
    public const string NginxGet = "peer/nginx-get";
    public const string LabUpload = "upload/freight";
    public const string LabDownload = "download/freight";

    /// <summary>20 MiB (study 1's payload) and 1 GiB (the large file); --quick: 20 MiB and 256 MiB.</summary>
    public static IReadOnlyList<long> Sizes(bool quick) => quick ? [20L << 20, 256L << 20] : [20L << 20, 1L << 30];

    public static IReadOnlyList<FilesScenario> Create(bool quick) =>
        Sizes(quick).SelectMany(size => new[] { Put, NginxPut, LabUpload, Get, NginxGet, LabDownload }.Select(id => new FilesScenario(id, size))).ToList();
}
