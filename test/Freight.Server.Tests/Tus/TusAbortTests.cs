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
        var key = NewFileName();
        var content = Content(Size, seed: 131);
        var path = await CreateAsync(server, Size, key, protocol);
        await PatchAllAsync(server, path, content[..Payloads.MiB], Payloads.MiB, protocol: protocol);
        await using var first = await PausedPatch.StartAsync(server, path, Payloads.MiB, content[Payloads.MiB..], InFlight, protocol);

        // A second PATCH from where its client last saw the upload takes it over, then finds it moved on.
        using var second = await PatchAsync(server, path, Payloads.MiB, Content(1000, seed: 132), protocol);
        await AssertRefusedAsync(second, HttpStatusCode.Conflict);

        var offset = await OffsetAsync(server, path);
        Assert.InRange(offset, Payloads.MiB + 1, Payloads.MiB + InFlight);
        await first.AssertTakenOverAsync(offset);
        await AssertHoldsAsync(server, path, content, offset, key);
        await PatchAllAsync(server, path, content, Payloads.MiB, from: offset, protocol: protocol);
        await AssertFileAsync(server, key, content);
    }

    [Theory]
    [InlineData(Protocol.Http11)]
    [InlineData(Protocol.Http2)]
    public async Task Head_WhileAPatchBodyIsPaused_TakesTheUploadOverAtAnOffsetThatStaysPut(Protocol protocol)
    {
        var key = NewFileName();
        var content = Content(Size, seed: 136);
        var path = await CreateAsync(server, Size, key);
        await PatchAllAsync(server, path, content[..Payloads.MiB], Payloads.MiB);
        await using var first = await PausedPatch.StartAsync(server, path, Payloads.MiB, content[Payloads.MiB..], InFlight, protocol);

        var offset = await OffsetAsync(server, path);

        Assert.InRange(offset, Payloads.MiB + 1, Payloads.MiB + InFlight);
        await AssertHoldsAsync(server, path, content, offset, key);
        await PatchAllAsync(server, path, content, Payloads.MiB, from: offset);
        await AssertFileAsync(server, key, content);
        await first.AssertTakenOverAsync(offset);
        if (protocol == Protocol.Http11)
        {
            await first.AssertClosedAsync();
        }
    }

    [Fact]
    public async Task Head_WhileAPatchBodyIsStillArriving_TakesTheUploadOverAndStopsReadingIt()
    {
        var key = NewFileName();
        var content = Content(Size, seed: 137);
        var path = await CreateAsync(server, Size, key);
        await PatchAllAsync(server, path, content[..Payloads.MiB], Payloads.MiB);
        await using var first = await PausedPatch.StartAsync(server, path, Payloads.MiB, content[Payloads.MiB..], InFlight, Protocol.Http11);

        // The body goes on coming, as from a proxy still delivering what it buffered for a client that is gone.
        using var stop = new CancellationTokenSource();
        var trickle = first.SendTheRestAsync(stop.Token);
        var offset = await OffsetAsync(server, path);

        await AssertHoldsAsync(server, path, content, offset, key);
        await PatchAllAsync(server, path, content, Payloads.MiB, from: offset);
        await AssertFileAsync(server, key, content);
        await first.AssertTakenOverAsync(offset);
        await stop.CancelAsync();
        await trickle;
    }

    [Fact]
    public async Task Head_WhileAPatchWithChecksumIsPaused_TakesItOverAndItsChunkIsDiscarded()
    {
        var key = NewFileName();
        var content = Content(Size, seed: 138);
        var path = await CreateAsync(server, Size, key);
        await PatchAllAsync(server, path, content[..Payloads.MiB], Payloads.MiB);
        var chunk = content[Payloads.MiB..(Payloads.MiB + (2 * InFlight))];
        await using var first = await PausedPatch.StartAsync(server, path, Payloads.MiB, chunk, InFlight, Protocol.Http11,
            ("Upload-Checksum", TusChecksumTests.Checksum("sha256", chunk)));

        Assert.Equal(Payloads.MiB, await OffsetAsync(server, path));

        await first.AssertTakenOverAsync(Payloads.MiB);
        await AssertHoldsAsync(server, path, content, Payloads.MiB, key);
        await PatchAllAsync(server, path, content, Payloads.MiB, from: Payloads.MiB);
        await AssertFileAsync(server, key, content);
    }

    [Theory]
    [InlineData(Cut.Reset)]
    [InlineData(Cut.Close)]
    public async Task Patch_CutOffMidBody_KeepsThePrefixThatArrivedAndResumesFromHeadsOffset(Cut cut)
    {
        var key = NewFileName();
        var content = Content(Size, seed: 133);
        var path = await CreateAsync(server, Size, key);
        await PatchAllAsync(server, path, content[..Payloads.MiB], Payloads.MiB);
        const int Declared = 2 * InFlight;

        await using (var connection = await RawHttpConnection.OpenAsync(server.HttpAddress))
        {
            await connection.SendAsync(RawHttpConnection.Head("PATCH", server.HttpAddress, path,
                "Tus-Resumable: 1.0.0", "Content-Type: " + OffsetStream, "Upload-Offset: " + Invariant(Payloads.MiB), "Content-Length: " + Invariant(Declared)));
            await connection.SendAsync(content[Payloads.MiB..(Payloads.MiB + (Declared / 2))]);
            Assert.True(await PollUntilAsync(async () => await server.StoredOffsetAsync(path) > Payloads.MiB), "the PATCH never started storing");
            if (cut == Cut.Reset)
            {
                connection.Reset();
            }
            else
            {
                connection.Close();
            }
        }

        var kept = await SettledOffsetAsync(server, path);

        Assert.InRange(kept, Payloads.MiB + 1, Payloads.MiB + (Declared / 2));
        await AssertHoldsAsync(server, path, content, kept, key);
        await PatchAllAsync(server, path, content, Payloads.MiB, from: kept);
        await AssertFileAsync(server, key, content);
    }

    [Theory]
    [InlineData(Cut.Reset)]
    [InlineData(Cut.Close)]
    public async Task Patch_WithChecksumCutOffMidBody_KeepsNothingOfTheChunk(Cut cut)
    {
        var key = NewFileName();
        var content = Content(Size, seed: 134);
        var path = await CreateAsync(server, Size, key);
        await PatchAllAsync(server, path, content[..Payloads.MiB], Payloads.MiB);
        var chunk = content[Payloads.MiB..(Payloads.MiB + (2 * InFlight))];

        await using (var connection = await RawHttpConnection.OpenAsync(server.HttpAddress))
        {
            await connection.SendAsync(RawHttpConnection.Head("PATCH", server.HttpAddress, path,
                "Tus-Resumable: 1.0.0", "Content-Type: " + OffsetStream, "Upload-Offset: " + Invariant(Payloads.MiB),
                "Content-Length: " + Invariant(chunk.Length), "Upload-Checksum: " + TusChecksumTests.Checksum("sha256", chunk)));
            await connection.SendAsync(chunk[..(chunk.Length / 2)]);
            Assert.True(await PollUntilAsync(async () => await server.StoredOffsetAsync(path) > Payloads.MiB), "the PATCH never started storing");
            if (cut == Cut.Reset)
            {
                connection.Reset();
            }
            else
            {
                connection.Close();
            }
        }

        Assert.Equal(Payloads.MiB, await SettledOffsetAsync(server, path));
        await AssertHoldsAsync(server, path, content, Payloads.MiB, key);
        await PatchAllAsync(server, path, content, Payloads.MiB, from: Payloads.MiB);
        await AssertFileAsync(server, key, content);
    }

    [Fact]
    public async Task Delete_RightAfterACutOffPatch_RemovesTheUpload()
    {
        var key = NewFileName();
        var content = Content(Size, seed: 135);
        var path = await CreateAsync(server, Size, key);

        await using (var cut = await PausedPatch.StartAsync(server, path, 0, content, InFlight, Protocol.Http11))
        {
            cut.Reset();
        }

        using var deleted = await DeleteAsync(server, path);

        await AssertRemovedAsync(deleted, path, key);
    }

    [Fact]
    public async Task Delete_WhileAPatchBodyIsPaused_TakesTheUploadOverAndRemovesIt()
    {
        var key = NewFileName();
        var content = Content(Size, seed: 139);
        var path = await CreateAsync(server, Size, key);
        await using var first = await PausedPatch.StartAsync(server, path, 0, content, InFlight, Protocol.Http11);

        using var deleted = await DeleteAsync(server, path);

        await AssertRemovedAsync(deleted, path, key);
        await first.AssertTakenOverAsync(offset: null);
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

        /// <summary>Cuts the HTTP/1.1 connection off with a TCP RST.</summary>
        public void Reset() => _connection!.Reset();

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
}

public sealed class TusAbortFileSystemTests(FileSystemTusServer server) : TusAbortTests(server), IClassFixture<FileSystemTusServer>;

public sealed class TusAbortMemoryTests(MemoryTusServer server) : TusAbortTests(server), IClassFixture<MemoryTusServer>;

public sealed class TusAbortS3Tests(S3TusServer server) : TusAbortTests(server), IClassFixture<S3TusServer>;

public sealed class TusAbortSampleTests(SampleTusServer server) : TusAbortTests(server), IClassFixture<SampleTusServer>;
