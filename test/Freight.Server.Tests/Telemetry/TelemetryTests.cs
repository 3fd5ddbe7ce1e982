using System.Globalization;
using System.Net;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Tus;
using Freight.Telemetry;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Telemetry;

/// <summary>
/// The meter and activity source named Freight, as a listener sees them while the files API and tus answer real
/// requests: how many uploads started, completed, were refused (and why) or aborted, the bytes that came and went
/// (those sendfile(2) sent too),
/// the digests that did not match, the store calls, and an activity for each upload, download and store call.
/// </summary>
[Collection(TelemetryCollection.Name)]
public sealed class TelemetryTests(FileSystemTusServer server) : IClassFixture<FileSystemTusServer>
{
    private static readonly (string, string) s_put = (FreightTelemetry.ProtocolTag, "put");
    private static readonly (string, string) s_fileSystem = (FreightTelemetry.StoreKindTag, "filesystem");

    [Fact]
    public async Task Put_Stored_CountsOneCompletedUploadItsBytesAndItsStoreCalls()
    {
        var key = $"{NewRoot()}/stored.bin";
        var content = Content(300_000, seed: 51);
        using var telemetry = new TelemetryRecorder();

        using var response = await PutAsync(server, key, content);

        await AssertStatusAsync(response, HttpStatusCode.Created);
        Assert.Equal(1, telemetry.Sum("freight.upload.started", s_put));
        Assert.Equal(1, telemetry.Sum("freight.upload.completed", s_put));
        Assert.Equal(0, telemetry.Sum("freight.upload.refused") + telemetry.Sum("freight.upload.aborted"));
        Assert.Equal(0, telemetry.Sum("freight.active_uploads"));
        Assert.Equal(content.Length, telemetry.Sum("freight.upload.bytes", s_put));
        // The PUT's store calls: the early precondition check, the write, its commit.
        Assert.Equal(1, telemetry.Count("freight.store.operation.duration", s_fileSystem, (FreightTelemetry.StoreOperationTag, "info")));
        Assert.Equal(1, telemetry.Count("freight.store.operation.duration", s_fileSystem, (FreightTelemetry.StoreOperationTag, "begin_write")));
        Assert.Equal(1, telemetry.Count("freight.store.operation.duration", s_fileSystem, (FreightTelemetry.StoreOperationTag, "commit")));

        var upload = Assert.Single(telemetry.Activities("freight.upload", key));
        Assert.Equal("completed", upload.Tag(FreightTelemetry.OutcomeTag));
        Assert.Equal((long)content.Length, upload.Tag(FreightTelemetry.BytesTag));
        Assert.Equal("put", upload.Tag(FreightTelemetry.ProtocolTag));
        var commit = Assert.Single(telemetry.Activities("freight.store.commit", key));
        Assert.Equal("ok", commit.Tag(FreightTelemetry.OutcomeTag));
        Assert.Equal((long)content.Length, commit.Tag(FreightTelemetry.BytesTag));
        Assert.Equal(upload.SpanId, commit.ParentSpanId);
    }

    [Fact]
    public async Task Get_StoredFile_CountsTheBytesSentAndTracesTheDownload()
    {
        var key = $"{NewRoot()}/served.bin";
        var content = Content(700_000, seed: 52);
        await CreateAsync(server, key, content);
        using var telemetry = new TelemetryRecorder();

        using var response = await SendAsync(server, HttpMethod.Get, "/files/" + key);

        await AssertStatusAsync(response, HttpStatusCode.OK);
        Assert.Equal(content, await response.Content.ReadAsByteArrayAsync());
        Assert.Equal(content.Length, telemetry.Sum("freight.download.bytes"));
        // Cleartext HTTP/1.1 and above 256 KiB: sent with sendfile(2), which the same meter counts by listener too (once
        // the send returned, which may be just after the client has read the last byte).
        var port = ("server.port", server.HttpAddress.Port.ToString(CultureInfo.InvariantCulture));
        Assert.True(await EventuallyAsync(() => telemetry.Sum("freight.sendfile.bytes", port) == content.Length), "the sendfile bytes were never counted");
        Assert.Equal(0, telemetry.Sum("freight.upload.started"));
        Assert.Equal(1, telemetry.Count("freight.store.operation.duration", s_fileSystem, (FreightTelemetry.StoreOperationTag, "open")));
        // The handler stops its activity as it returns, which may be just after the client has read the last byte.
        Assert.True(await EventuallyAsync(() => telemetry.Activities("freight.download", key).Count == 1), "no download activity");
        var download = Assert.Single(telemetry.Activities("freight.download", key));
        Assert.Equal("completed", download.Tag(FreightTelemetry.OutcomeTag));
        Assert.Equal((long)content.Length, download.Tag(FreightTelemetry.BytesTag));
        Assert.Equal(200, download.Tag("http.response.status_code"));
        var open = Assert.Single(telemetry.Activities("freight.store.open", key));
        Assert.Equal(download.SpanId, open.ParentSpanId);
    }

    [Fact]
    public async Task Get_MissingFile_TracesARefusedDownloadWithItsStatusNotAnError()
    {
        var key = $"{NewRoot()}/missing.bin";
        using var telemetry = new TelemetryRecorder();

        using var response = await SendAsync(server, HttpMethod.Get, "/files/" + key);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
        // A 404 is the client's mistake, as an upload's 4xx is: refused, with its status, and no error for a dashboard.
        Assert.True(await EventuallyAsync(() => telemetry.Activities("freight.download", key).Count == 1), "no download activity");
        var download = Assert.Single(telemetry.Activities("freight.download", key));
        Assert.Equal("refused", download.Tag(FreightTelemetry.OutcomeTag));
        Assert.Equal(404, download.Tag("http.response.status_code"));
        Assert.Equal(System.Diagnostics.ActivityStatusCode.Unset, download.Status);
    }

    [Theory]
    [InlineData("If-Match", "\"other\"", 412, "refused")]
    [InlineData("Range", "bytes=5000-", 416, "refused")]
    [InlineData("If-None-Match", null, 304, "completed")]
    public async Task Get_ConditionalOrRange_TracesTheAnswersStatusAndOutcome(string header, string? value, int status, string outcome)
    {
        var key = $"{NewRoot()}/conditional.bin";
        var content = Content(1000, seed: 53);
        await CreateAsync(server, key, content);
        using var telemetry = new TelemetryRecorder();

        using var response = await SendAsync(server, HttpMethod.Get, "/files/" + key, (header, value ?? ETag(content)));

        Assert.Equal(status, (int)response.StatusCode);
        Assert.True(await EventuallyAsync(() => telemetry.Activities("freight.download", key).Count == 1), "no download activity");
        var download = Assert.Single(telemetry.Activities("freight.download", key));
        Assert.Equal(outcome, download.Tag(FreightTelemetry.OutcomeTag));
        Assert.Equal(status, download.Tag("http.response.status_code"));
        Assert.Equal(System.Diagnostics.ActivityStatusCode.Unset, download.Status);
    }

    [Fact]
    public async Task Put_ClientGoesAwayMidBody_CountsOneAbortedUploadAndTheBytesThatArrived()
    {
        var key = $"{NewRoot()}/torn.bin";
        // One read batch of the PUT's copy loop (256 KiB): the server takes it whole, then waits for bytes that never come.
        const int Sent = 256 * 1024;
        using var telemetry = new TelemetryRecorder();
        await using (var connection = await RawHttpConnection.OpenAsync(server.HttpAddress))
        {
            await connection.SendAsync(RawHttpConnection.Head("PUT", server.HttpAddress, "/files/" + key, "Content-Length: " + Invariant(4 * Sent)));
            await connection.SendAsync(Content(Sent));
            Assert.True(await EventuallyAsync(() => telemetry.Sum("freight.upload.bytes", s_put) == Sent), "the bytes sent were never counted");
            Assert.Equal(1, telemetry.Sum("freight.active_uploads", s_put));
            connection.Close();
        }

        Assert.True(await EventuallyAsync(() => telemetry.Sum("freight.upload.aborted", s_put) == 1), "the upload was never counted as aborted");
        Assert.Equal(1, telemetry.Sum("freight.upload.started", s_put));
        Assert.Equal(0, telemetry.Sum("freight.upload.completed") + telemetry.Sum("freight.upload.refused"));
        Assert.Equal(0, telemetry.Sum("freight.active_uploads"));
        Assert.Equal(Sent, telemetry.Sum("freight.upload.bytes"));
        Assert.Equal(0, telemetry.Count("freight.store.operation.duration", (FreightTelemetry.StoreOperationTag, "commit")));
        var upload = Assert.Single(telemetry.Activities("freight.upload", key));
        Assert.Equal("aborted", upload.Tag(FreightTelemetry.OutcomeTag));
        Assert.Equal(System.Diagnostics.ActivityStatusCode.Error, upload.Status);
    }

    [Fact]
    public async Task Put_DigestMismatch_CountsARefusalForItAndTheMismatchedAlgorithm()
    {
        var key = $"{NewRoot()}/mismatch.bin";
        var content = Content(200_000, seed: 53);
        using var telemetry = new TelemetryRecorder();

        using var response = await PutAsync(server, key, content, ("Content-Digest", Sha256Field(Content(200_000, seed: 54))));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
        Assert.Equal(1, telemetry.Sum("freight.upload.started", s_put));
        Assert.Equal(1, telemetry.Sum("freight.upload.refused", s_put, (FreightTelemetry.RefusalReasonTag, "digest_mismatch")));
        Assert.Equal(0, telemetry.Sum("freight.upload.completed") + telemetry.Sum("freight.upload.aborted"));
        Assert.Equal(1, telemetry.Sum("freight.digest.mismatches", (FreightTelemetry.DigestAlgorithmTag, "sha-256")));
        Assert.Equal(0, telemetry.Sum("freight.active_uploads"));
        Assert.Equal(content.Length, telemetry.Sum("freight.upload.bytes", s_put));
        Assert.Equal(0, telemetry.Count("freight.store.operation.duration", (FreightTelemetry.StoreOperationTag, "commit")));
        var upload = Assert.Single(telemetry.Activities("freight.upload", key));
        Assert.Equal("refused", upload.Tag(FreightTelemetry.OutcomeTag));
        Assert.Equal("digest_mismatch", upload.Tag(FreightTelemetry.RefusalReasonTag));
    }

    [Fact]
    public async Task Put_FailedPrecondition_CountsARefusalForIt()
    {
        var key = $"{NewRoot()}/exists.bin";
        await CreateAsync(server, key, Content(1000, seed: 55));
        using var telemetry = new TelemetryRecorder();

        using var response = await PutAsync(server, key, Content(1000, seed: 56), ("If-None-Match", "*"));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.PreconditionFailed);
        Assert.Equal(1, telemetry.Sum("freight.upload.refused", s_put, (FreightTelemetry.RefusalReasonTag, "precondition")));
        Assert.Equal(1, telemetry.Sum("freight.upload.started", s_put));
        Assert.Equal(0, telemetry.Sum("freight.active_uploads"));
    }

    [Fact]
    public async Task Post_TwoFileParts_CountsTwoCompletedMultipartUploads()
    {
        var root = NewRoot();
        var one = Content(100_000, seed: 57);
        var two = Content(50_000, seed: 58);
        using var telemetry = new TelemetryRecorder();

        using var form = new MultipartFormDataContent();
        form.Add(new StringContent("hello"), "note");
        form.Add(new ByteArrayContent(one), "f1", "one.bin");
        form.Add(new ByteArrayContent(two), "f2", "two.bin");
        using var request = server.Request(HttpMethod.Post, Protocol.Http11, $"/files/{root}");
        request.Content = form;
        using var response = await server.Client.SendAsync(request);

        await AssertStatusAsync(response, HttpStatusCode.Created);
        var multipart = (FreightTelemetry.ProtocolTag, "multipart");
        Assert.Equal(2, telemetry.Sum("freight.upload.started", multipart));
        Assert.Equal(2, telemetry.Sum("freight.upload.completed", multipart));
        Assert.Equal(one.Length + two.Length, telemetry.Sum("freight.upload.bytes", multipart));
        Assert.Equal(0, telemetry.Sum("freight.active_uploads"));
        Assert.Equal(2, telemetry.Count("freight.store.operation.duration", s_fileSystem, (FreightTelemetry.StoreOperationTag, "commit")));
        Assert.Equal((long)one.Length, Assert.Single(telemetry.Activities("freight.upload", $"{root}/one.bin")).Tag(FreightTelemetry.BytesTag));
        Assert.Equal((long)two.Length, Assert.Single(telemetry.Activities("freight.upload", $"{root}/two.bin")).Tag(FreightTelemetry.BytesTag));
    }

    [Fact]
    public async Task Patch_LastChunk_CountsOneTusUploadItsBytesAndTheCompletion()
    {
        var content = Content(120_000, seed: 59);
        var path = await TusApi.CreateAsync(server, content.Length, TusApi.NewFileName());
        using var telemetry = new TelemetryRecorder();

        using var response = await TusApi.PatchAsync(server, path, 0, content);

        await AssertStatusAsync(response, HttpStatusCode.NoContent);
        var tus = (FreightTelemetry.ProtocolTag, "tus");
        Assert.Equal(1, telemetry.Sum("freight.upload.started", tus));
        Assert.Equal(1, telemetry.Sum("freight.upload.completed", tus));
        Assert.Equal(content.Length, telemetry.Sum("freight.upload.bytes", tus));
        Assert.Equal(0, telemetry.Sum("freight.active_uploads"));
        // The last byte made the upload a file: the store's completion, timed.
        Assert.Equal(1, telemetry.Count("freight.store.operation.duration", s_fileSystem, (FreightTelemetry.StoreOperationTag, "complete_upload")));
        var upload = Assert.Single(telemetry.Activities("freight.upload", TusApi.Id(path)));
        Assert.Equal((long)content.Length, upload.Tag(FreightTelemetry.BytesTag));
    }

    [Fact]
    public async Task Patch_ChecksumMismatch_CountsADigestMismatchRefusal()
    {
        var content = Content(10_000, seed: 60);
        var path = await TusApi.CreateAsync(server, content.Length, TusApi.NewFileName());
        using var telemetry = new TelemetryRecorder();

        var wrong = Convert.ToBase64String(System.Security.Cryptography.SHA1.HashData(Content(10_000, seed: 61)));
        using var response = await TusApi.PatchAsync(server, path, 0, content, Protocol.Http11, ("Upload-Checksum", "sha1 " + wrong));

        Assert.Equal(460, (int)response.StatusCode);
        var tus = (FreightTelemetry.ProtocolTag, "tus");
        Assert.Equal(1, telemetry.Sum("freight.upload.refused", tus, (FreightTelemetry.RefusalReasonTag, "digest_mismatch")));
        Assert.Equal(1, telemetry.Sum("freight.digest.mismatches", (FreightTelemetry.DigestAlgorithmTag, "sha1")));
        Assert.Equal(0, telemetry.Sum("freight.active_uploads"));
    }
}
