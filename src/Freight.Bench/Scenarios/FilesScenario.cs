namespace Freight.Bench.Scenarios;

/// <summary>
/// One row of the files suite: a PUT or GET of one payload size through the files API (<c>files/put</c>,
/// <c>files/get</c>), through nginx (<c>peer/nginx-put</c> WebDAV, <c>peer/nginx-get</c> sendfile), or through
/// the lab's raw paths on the same bytes (<c>upload/freight</c> to a file, <c>download/freight</c>) — the API's
/// own cost is the difference.
/// </summary>
public sealed record FilesScenario(string Id, long PayloadBytes)
{
    public bool IsUpload => Id is FilesSuite.Put or FilesSuite.NginxPut or FilesSuite.LabUpload;

    public bool IsPeer => Id is FilesSuite.NginxPut or FilesSuite.NginxGet;

    public string Describe() => $"{Reports.SizeText.Format(PayloadBytes)}, http h1, {(IsUpload ? "to disk" : "from disk")}";
}
