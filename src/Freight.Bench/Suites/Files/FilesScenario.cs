namespace Freight.Bench.Suites.Files;

/// <summary>
/// One row of the files suite: a PUT or GET of one payload size through the files API (<c>files/put</c>,
/// <c>files/get</c>), through nginx (<c>peer/nginx-put</c> WebDAV, <c>peer/nginx-get</c> sendfile), or through
/// the lab's raw paths on the same bytes (<c>upload/freight</c> to a file, <c>download/freight</c>) — the API's
/// own cost is the difference. <c>files/put-sendfile</c> and <c>peer/nginx-put-sendfile</c> are the two PUTs again, sent
/// from a file by sendfile(2) (<see cref="SendFilePut"/>). On the S3 store (<see cref="Store"/> <c>s3</c>) the peer is the S3 server itself,
/// reached by presigned URLs (<c>peer/s3-direct-put</c>, <c>peer/s3-direct-get</c>). <see cref="AaCopy"/> marks the
/// suite's A/A control, measured again under <see cref="RowId"/>.
/// </summary>
public sealed record FilesScenario(string Id, long PayloadBytes, string Store = FilesSuite.FileSystemStore, bool AaCopy = false)
{
    /// <summary>The row's id: <see cref="Id"/>, or its A/A copy's (<c>files/get#a</c>).</summary>
    public string RowId => AaCopy ? Verdicts.AaControl.CopyId(Id) : Id;

    public bool IsUpload => Id is FilesSuite.Put or FilesSuite.NginxPut or FilesSuite.PutSendFile or FilesSuite.NginxPutSendFile or FilesSuite.LabUpload or FilesSuite.S3DirectPut;

    public bool IsPeer => Id is FilesSuite.NginxPut or FilesSuite.NginxPutSendFile or FilesSuite.NginxGet or FilesSuite.S3DirectPut or FilesSuite.S3DirectGet;

    /// <summary>Whether the client sends the body from a file by sendfile(2) rather than from memory through HttpClient.</summary>
    public bool SendsFile => Id is FilesSuite.PutSendFile or FilesSuite.NginxPutSendFile;

    /// <summary>Whether the row talks to the S3 server without Freight.</summary>
    public bool IsS3Direct => Id is FilesSuite.S3DirectPut or FilesSuite.S3DirectGet;

    /// <summary>The store in the label, so rows of an fs run and an s3 run never compare as the same measurement.</summary>
    public string Describe() => Store == FilesSuite.S3Store
        ? $"{Reports.SizeText.Format(PayloadBytes)}, http h1, {(IsUpload ? "to S3 (RGW)" : "from S3 (RGW)")}"
        : $"{Reports.SizeText.Format(PayloadBytes)}, http h1, {(IsUpload ? "to disk" : "from disk")}{(SendsFile ? ", sendfile client" : "")}";
}
