using System.IO.Hashing;
using System.Net;
using System.Text.RegularExpressions;
using Freight.Bench.Load;
using Freight.Bench.Suites.Tus;
using Freight.Bench.Tests.Client;
using Freight.Lab.Payload;
using Freight.Storage;

namespace Freight.Bench.Tests.Tus;

/// <summary>
/// The bench's tus client against the real <c>freight serve</c> (in process, 127.0.0.1 port 0): a finished
/// upload is the files API's file, with the payload's bytes, length and content-hash ETag.
/// </summary>
public sealed class TusUploadClientTests(OpenFilesServer server) : IClassFixture<OpenFilesServer>, IDisposable
{
    // Five 1 MiB chunks and an odd tail: several PATCHes, the last one short.
    private const int PayloadBytes = (5 * 1024 * 1024) + 4321;

    private const int ChunkBytes = 1024 * 1024;

    private readonly HttpClient _client = new();

    private Uri Endpoint => new(server.HttpAddress, "/tus/");

    [Theory]
    [InlineData(ChunkBytes, 6)]
    [InlineData(16 * 1024 * 1024, 1)]
    public async Task Upload_InChunks_BecomesTheFileWithThePayloadsBytesAndETag(int chunkBytes, int patches)
    {
        var payload = DeterministicPayload.Create(PayloadBytes);
        var name = $"tus-client-{chunkBytes}.bin";

        var upload = await new TusUploadClient(_client).UploadAsync(Endpoint, name, payload, chunkBytes, CancellationToken.None);

        Assert.Equal(patches, upload.Patches);
        Assert.Equal(PayloadBytes, upload.Offset);
        using var head = await _client.SendAsync(new HttpRequestMessage(HttpMethod.Head, server.Url(name)));
        Assert.Equal(HttpStatusCode.OK, head.StatusCode);
        Assert.Equal(PayloadBytes, head.Content.Headers.ContentLength);
        Assert.Equal(FileSystemObjectStore.FormatETag(XxHash128.HashToUInt128(payload)), head.Headers.ETag?.ToString());
        Assert.Equal(payload, await _client.GetByteArrayAsync(server.Url(name)));
    }

    [Fact]
    public async Task CreateAsync_RelativeLocation_ResolvedAgainstTheEndpoint()
    {
        var location = await new TusUploadClient(_client).CreateAsync(Endpoint, "relative.bin", 10, CancellationToken.None);

        Assert.True(location.IsAbsoluteUri);
        Assert.StartsWith(new Uri(server.HttpAddress, "/tus/").ToString(), location.ToString(), StringComparison.Ordinal);
        using var request = new HttpRequestMessage(HttpMethod.Head, location);
        request.Headers.Add("Tus-Resumable", TusUploadClient.ProtocolVersion);
        using var head = await _client.SendAsync(request);
        Assert.Equal(HttpStatusCode.OK, head.StatusCode);
        Assert.Equal("0", head.Headers.GetValues("Upload-Offset").Single());
    }

    [Fact]
    public async Task Upload_EmptyPayload_NoPatchAndAnEmptyFile()
    {
        var upload = await new TusUploadClient(_client).UploadAsync(Endpoint, "tus-empty.bin", [], ChunkBytes, CancellationToken.None);

        Assert.Equal(0, upload.Patches);
        using var head = await _client.SendAsync(new HttpRequestMessage(HttpMethod.Head, server.Url("tus-empty.bin")));
        Assert.Equal(HttpStatusCode.OK, head.StatusCode);
        Assert.Equal(0, head.Content.Headers.ContentLength);
    }

    [Fact]
    public async Task PatchAsync_OffsetAheadOfTheServer_FailsWithStatusAndProblem()
    {
        var tus = new TusUploadClient(_client);
        var payload = DeterministicPayload.Create(PayloadBytes);
        var location = await tus.CreateAsync(Endpoint, "tus-gap.bin", payload.Length, CancellationToken.None);

        var failure = await Assert.ThrowsAsync<VerificationException>(() => tus.PatchAsync(location, payload, ChunkBytes, ChunkBytes, CancellationToken.None));

        Assert.StartsWith($"PATCH {location}: 409 ", failure.Message, StringComparison.Ordinal);
        Assert.Contains("where tus expects 204", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task PatchAsync_SameChunkTwice_SecondFailsWithConflict()
    {
        var tus = new TusUploadClient(_client);
        var payload = DeterministicPayload.Create(PayloadBytes);
        var location = await tus.CreateAsync(Endpoint, "tus-twice.bin", payload.Length, CancellationToken.None);

        var offset = await tus.PatchAsync(location, payload, 0, ChunkBytes, CancellationToken.None);
        var failure = await Assert.ThrowsAsync<VerificationException>(() => tus.PatchAsync(location, payload, 0, ChunkBytes, CancellationToken.None));

        Assert.Equal(ChunkBytes, offset);
        Assert.StartsWith($"PATCH {location}: 409 ", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task CreateAsync_NotATusEndpoint_FailsWithStatusAndBody()
    {
        var notTus = new Uri(server.HttpAddress, "/files/not-tus/");

        var failure = await Assert.ThrowsAsync<VerificationException>(() => new TusUploadClient(_client).CreateAsync(notTus, "x.bin", 10, CancellationToken.None));

        Assert.Matches($"^POST {Regex.Escape(notTus.ToString())}: 4\\d\\d ", failure.Message);
        Assert.Contains("where tus expects 201: {", failure.Message, StringComparison.Ordinal);
    }

    public void Dispose() => _client.Dispose();
}
