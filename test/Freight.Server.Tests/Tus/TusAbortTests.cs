using System.Net;
using System.Net.Sockets;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Sample;
using static Freight.Server.Tests.Files.FilesApi;
using static Freight.Server.Tests.Tus.TusApi;

namespace Freight.Server.Tests.Tus;

/// <summary>
/// One request per upload, and what a broken PATCH leaves: a request for an upload a PATCH is still writing (HEAD,
/// PATCH, DELETE) takes it over — the PATCH stops reading at its next chunk, keeps what it stored and answers 423 — so
/// the offset HEAD gives stays put and a PATCH from it goes on; a PATCH cut off mid-body keeps the bytes that arrived —
/// exactly the source's prefix, so the upload resumes from HEAD's offset — unless it carried Upload-Checksum, which
/// they cannot meet. One contract, run against each store. A PATCH's progress is watched in the store
/// (<see cref="TusServer.StoredOffsetAsync"/>), not by HEAD, which would take it over.
/// </summary>
public abstract class TusAbortTests(TusServer server)
{
    private const int Size = 16 * Payloads.MiB;

    // What a PATCH sends before the test looks at the server: more than one S3 part (5 MiB with the S3 fixture),
    // so every store shows the PATCH's progress while it is still in flight.
    private const int InFlight = 6 * Payloads.MiB;

    public enum Cut
    {
        /// <summary>SO_LINGER 0: the close sends a TCP RST.</summary>
        Reset,

        /// <summary>A plain close: FIN, the body ends short of its Content-Length.</summary>
        Close,
    }

    [Theory]
    [InlineData(Protocol.Http11)]
    [InlineData(Protocol.Http2)]
    public async Task Patch_WhileAnotherPatchOfTheUploadIsInFlight_TakesItOverAndTheFirstAnswers423WithWhatItKept(Protocol protocol)
    {
        var upload = await NewUploadAsync(seed: 131, protocol);
        await using var first = await PausedPatchAsync(upload, protocol);

        // A second PATCH from where its client last saw the upload takes it over, then finds it moved on.
        using var second = await PatchAsync(server, upload.Path, Payloads.MiB, Content(1000, seed: 132), protocol);
        await AssertRefusedAsync(second, HttpStatusCode.Conflict);

        var offset = await OffsetAsync(server, upload.Path);
        Assert.InRange(offset, Payloads.MiB + 1, Payloads.MiB + InFlight);
        await first.AssertTakenOverAsync(offset);
        await AssertResumesFromAsync(upload, offset, protocol);
    }

    [Theory]
    [InlineData(Protocol.Http11)]
    [InlineData(Protocol.Http2)]
    public async Task Head_WhileAPatchBodyIsPaused_TakesTheUploadOverAtAnOffsetThatStaysPut(Protocol protocol)
    {
        var upload = await NewUploadAsync(seed: 136);
        await using var first = await PausedPatchAsync(upload, protocol);

        var offset = await OffsetAsync(server, upload.Path);

        Assert.InRange(offset, Payloads.MiB + 1, Payloads.MiB + InFlight);
        await AssertResumesFromAsync(upload, offset);
        await first.AssertTakenOverAsync(offset);
        if (protocol == Protocol.Http11)
        {
            await first.AssertClosedAsync();
        }
    }

    [Fact]
    public async Task Head_WhileAPatchBodyIsStillArriving_TakesTheUploadOverAndStopsReadingIt()
    {
        var upload = await NewUploadAsync(seed: 137);
        await using var first = await PausedPatchAsync(upload);

        // The body goes on coming, as from a proxy still delivering what it buffered for a client that is gone.
        using var stop = new CancellationTokenSource();
        var trickle = first.SendTheRestAsync(stop.Token);
        var offset = await OffsetAsync(server, upload.Path);

        await AssertResumesFromAsync(upload, offset);
        await first.AssertTakenOverAsync(offset);
        await stop.CancelAsync();
        await trickle;
    }

    [Fact]
    public async Task Head_WhileAPatchWithChecksumIsPaused_TakesItOverAndItsChunkIsDiscarded()
    {
        var upload = await NewUploadAsync(seed: 138);
        await using var first = await PausedPatchAsync(upload, checksummed: true);

        Assert.Equal(Payloads.MiB, await OffsetAsync(server, upload.Path));

        await first.AssertTakenOverAsync(Payloads.MiB);
        await AssertResumesFromAsync(upload, Payloads.MiB);
    }

    [Theory]
    [InlineData(Cut.Reset)]
    [InlineData(Cut.Close)]
    public async Task Patch_CutOffMidBody_KeepsThePrefixThatArrivedAndResumesFromHeadsOffset(Cut cut)
    {
        var upload = await NewUploadAsync(seed: 133);

        await using (var patch = await PausedPatchAsync(upload))
        {
            patch.CutOff(cut);
        }

        var kept = await SettledOffsetAsync(server, upload.Path);

        Assert.InRange(kept, Payloads.MiB + 1, Payloads.MiB + InFlight);
        await AssertResumesFromAsync(upload, kept);
    }

    [Theory]
    [InlineData(Cut.Reset)]
    [InlineData(Cut.Close)]
    public async Task Patch_WithChecksumCutOffMidBody_KeepsNothingOfTheChunk(Cut cut)
    {
        var upload = await NewUploadAsync(seed: 134);

        await using (var patch = await PausedPatchAsync(upload, checksummed: true))
        {
            patch.CutOff(cut);
        }

        Assert.Equal(Payloads.MiB, await SettledOffsetAsync(server, upload.Path));
        await AssertResumesFromAsync(upload, Payloads.MiB);
    }

    [Fact]
    public async Task Delete_RightAfterACutOffPatch_RemovesTheUpload()
    {
        var upload = await NewUploadAsync(seed: 135, stored: 0);

        await using (var patch = await PausedPatchAsync(upload))
        {
            patch.CutOff(Cut.Reset);
        }

        using var deleted = await DeleteAsync(server, upload.Path);

        await AssertRemovedAsync(deleted, upload.Path, upload.Key);
    }

    [Fact]
    public async Task Delete_WhileAPatchBodyIsPaused_TakesTheUploadOverAndRemovesIt()
    {
        var upload = await NewUploadAsync(seed: 139, stored: 0);
        await using var first = await PausedPatchAsync(upload);

        using var deleted = await DeleteAsync(server, upload.Path);

        await AssertRemovedAsync(deleted, upload.Path, upload.Key);
        await first.AssertTakenOverAsync(offset: null);
    }

    /// <summary>
    /// Creates an upload of <see cref="Size"/> bytes named by a new file name, its source seeded by <paramref name="seed"/>,
    /// and PATCHes the source's first <paramref name="stored"/> bytes into it, all over <paramref name="protocol"/>.
    /// </summary>
    private async Task<Upload> NewUploadAsync(ulong seed, Protocol protocol = Protocol.Http11, int stored = Payloads.MiB)
    {
        var key = NewFileName();
        var content = Content(Size, seed);
        var path = await CreateAsync(server, Size, key, protocol);
        await PatchAllAsync(server, path, content[..stored], Payloads.MiB, protocol: protocol);
        return new Upload(key, content, path, stored);
    }

    /// <summary>
    /// A PATCH of the source's next 2 × <see cref="InFlight"/> bytes after what the upload holds, paused once the server
    /// stores part of the first half: the other half is still to come. <paramref name="checksummed"/>: with the chunk's
    /// Upload-Checksum.
    /// </summary>
    private Task<PausedPatch> PausedPatchAsync(Upload upload, Protocol protocol = Protocol.Http11, bool checksummed = false)
    {
        var chunk = upload.Content[upload.Stored..(upload.Stored + (2 * InFlight))];
        return PausedPatch.StartAsync(server, upload.Path, upload.Stored, chunk, InFlight, protocol,
            checksummed ? [("Upload-Checksum", TusChecksumTests.Checksum("sha256", chunk))] : []);
    }

    /// <summary>
    /// The upload holds exactly the source's first <paramref name="offset"/> bytes and no file yet, and PATCHes from
    /// there (over <paramref name="protocol"/>) finish it into the file of exactly the source.
    /// </summary>
    private async Task AssertResumesFromAsync(Upload upload, long offset, Protocol protocol = Protocol.Http11)
    {
        await AssertHoldsAsync(server, upload.Path, upload.Content, offset, upload.Key);
        await PatchAllAsync(server, upload.Path, upload.Content, Payloads.MiB, from: offset, protocol: protocol);
        await AssertFileAsync(server, upload.Key, upload.Content);
    }

    private async Task AssertRemovedAsync(HttpResponseMessage deleted, string path, string key)
    {
        Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, await HeadStatusAsync(server, path));
        if (server.TusDirectory is not null)
        {
            Assert.DoesNotContain(server.TusFiles(), name => name.StartsWith(Id(path), StringComparison.Ordinal));
        }

        await AssertNoFileAsync(server, key);
    }

    /// <summary>
    /// A PATCH that sent the first <c>sent</c> bytes of its body and pauses with its connection open, once the server
    /// stores them: the upload is held, the server waiting for more. HTTP/1.1 from a raw socket (HttpClient reads no
    /// answer before it has sent the whole body), HTTP/2 from HttpClient.
    /// </summary>
    private sealed class PausedPatch : IAsyncDisposable
    {
        private byte[] _body = [];
        private int _sent;
        private RawHttpConnection? _connection;
        private GatedContent? _gated;
        private HttpRequestMessage? _request;
        private Task<HttpResponseMessage>? _sending;

        public static async Task<PausedPatch> StartAsync(TusServer server, string path, long offset, byte[] body, int sent, Protocol protocol, params (string Name, string Value)[] headers)
        {
            var paused = new PausedPatch { _body = body, _sent = sent };
            if (protocol == Protocol.Http11)
            {
                paused._connection = await RawHttpConnection.OpenAsync(server.HttpAddress);
                await paused._connection.SendAsync(RawHttpConnection.Head("PATCH", server.HttpAddress, path,
                    ["Tus-Resumable: " + TusApi.Version, "Content-Type: " + OffsetStream, "Upload-Offset: " + Invariant(offset), "Content-Length: " + Invariant(body.Length), .. headers.Select(header => header.Name + ": " + header.Value)]));
                await paused._connection.SendAsync(body.AsMemory(0, sent));
            }
            else
            {
                paused._gated = new GatedContent(body, sent);
                paused._request = Request(server, HttpMethod.Patch, path, protocol);
                paused._request.Content = paused._gated;
                AddHeaders(paused._request, [("Upload-Offset", Invariant(offset)), .. headers]);
                paused._sending = server.Client.SendAsync(paused._request);
            }

            Assert.True(await PollUntilAsync(async () => await server.StoredOffsetAsync(path) > offset), "the PATCH never started storing");
            return paused;
        }

        /// <summary>
        /// Its answer: 423 with Retry-After and where the upload stood when it let go (<paramref name="offset"/>, when
        /// known); over HTTP/1.1 with Connection: close, the rest of the body not read into the upload.
        /// </summary>
        public async Task AssertTakenOverAsync(long? offset)
        {
            if (_connection is not null)
            {
                var answer = await _connection.ReadResponseAsync();
                AssertRefused(answer, HttpStatusCode.Locked);
                Assert.Equal("1", answer.Header("Retry-After"));
                Assert.NotNull(answer.Header("Upload-Offset"));
                if (offset is not null)
                {
                    Assert.Equal(Invariant(offset.Value), answer.Header("Upload-Offset"));
                }

                Assert.Equal("close", answer.Header("Connection"));
                return;
            }

            using var response = await _sending!;
            await AssertRefusedAsync(response, HttpStatusCode.Locked);
            Assert.Equal("1", Header(response, "Retry-After"));
            var kept = Offset(response);
            if (offset is not null)
            {
                Assert.Equal(offset.Value, kept);
            }
        }

        /// <summary>
        /// Over HTTP/1.1, after its answer: the server closes the connection with nothing more for it (once Kestrel gave
        /// up draining the body, 5 s).
        /// </summary>
        public async Task AssertClosedAsync() => Assert.Empty(await _connection!.ReadUntilClosedAsync());

        /// <summary>
        /// Sends the rest of the body over HTTP/1.1, 16 KiB at a time with pauses between, until it ends,
        /// <paramref name="stop"/> is canceled or the server closes the connection.
        /// </summary>
        public async Task SendTheRestAsync(CancellationToken stop)
        {
            const int Step = 16 * 1024;
            try
            {
                for (var sent = _sent; sent < _body.Length && !stop.IsCancellationRequested; sent += Step)
                {
                    await _connection!.SendAsync(_body.AsMemory(sent, Math.Min(Step, _body.Length - sent)));
                    await Task.Delay(10, stop);
                }
            }
            catch (Exception over) when (over is SocketException or OperationCanceledException)
            {
            }
        }

        /// <summary>Cuts the HTTP/1.1 connection off mid-body, as <paramref name="cut"/> says.</summary>
        public void CutOff(Cut cut)
        {
            if (cut == Cut.Reset)
            {
                _connection!.Reset();
            }
            else
            {
                _connection!.Close();
            }
        }

        public async ValueTask DisposeAsync()
        {
            _gated?.Release();
            if (_sending is not null)
            {
                // Whatever became of it (answered, or its stream reset once answered), it is over.
                await _sending.ContinueWith(static sent => sent.Exception, TaskScheduler.Default);
            }

            _request?.Dispose();
            if (_connection is not null)
            {
                await _connection.DisposeAsync();
            }
        }
    }

    /// <summary>An upload of <see cref="Size"/> bytes of <c>Content</c>, to land as file <c>Key</c>, holding its first <c>Stored</c> bytes.</summary>
    private sealed record Upload(string Key, byte[] Content, string Path, int Stored);
}

public sealed class TusAbortFileSystemTests(FileSystemTusServer server) : TusAbortTests(server), IClassFixture<FileSystemTusServer>;

public sealed class TusAbortMemoryTests(MemoryTusServer server) : TusAbortTests(server), IClassFixture<MemoryTusServer>;

public sealed class TusAbortS3Tests(S3TusServer server) : TusAbortTests(server), IClassFixture<S3TusServer>;

public sealed class TusAbortSampleTests(SampleTusServer server) : TusAbortTests(server), IClassFixture<SampleTusServer>;
