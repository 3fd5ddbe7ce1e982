using System.Net;
using System.Net.Http.Headers;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// Clients that hold resources without making progress: an upload trickling under
/// <c>Files:MinUploadBytesPerSecond</c> (64 KiB/s after a 5 s grace) is cut on HTTP/1.1 and HTTP/2 alike, an upload
/// aborted mid-body leaves nothing, and a download nobody reads does not hold up anyone else — on each store.
/// </summary>
public abstract class SlowClientTests(FilesServer server)
{
    // The trickle: 1 KiB every 200 ms (5 KiB/s), far under the 64 KiB/s minimum and far over Kestrel's 240 B/s
    // default. Uncut it would end after Declared / 5 KiB/s ≈ 48 s and be stored: the test would fail. Kestrel only
    // counts time the app spends awaiting body reads, and the 5 s grace starts there: a store that is slow to start
    // reading (RGW under CI's load) let a 12 s trickle finish inside the grace once, so the trickle outlasts that
    // by far. Cut, it costs the same ~6 s as before.
    private const int Declared = 240 * 1024;
    private const int TrickleBytes = 1024;
    private static readonly TimeSpan s_trickleInterval = TimeSpan.FromMilliseconds(200);

    [Fact]
    public async Task Put_TrickleUnderTheMinimumRateOnHttp11_IsCutAndLeavesNothing()
    {
        var key = $"{NewRoot()}/trickle.bin";
        await using var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);
        await connection.SendAsync(RawHttpConnection.Head("PUT", server.HttpAddress, "/files/" + key, "Content-Length: " + Invariant(Declared)));

        using var stop = new CancellationTokenSource();
        var trickling = TrickleAsync(connection, stop.Token);
        RawHttpResponse? response = null;
        try
        {
            response = await connection.ReadResponseAsync();
        }
        catch (Exception closed) when (closed is IOException or System.Net.Sockets.SocketException)
        {
            // Cut without an answer: the closed connection is the answer.
        }

        await stop.CancelAsync();
        await trickling;
        if (response is not null)
        {
            ProblemAssert.IsProblem(response, HttpStatusCode.RequestTimeout);
        }

        await AssertLeftNothingAsync(key);
    }

    [Fact]
    public async Task Put_TrickleUnderTheMinimumRateOnHttp2_IsCutAndLeavesNothing()
    {
        var key = $"{NewRoot()}/trickle.bin";
        var body = new TrickleStream(Declared);
        using var request = server.Request(HttpMethod.Put, Protocol.Http2, "/files/" + key);
        request.Content = new StreamContent(body, TrickleBytes);
        request.Content.Headers.ContentLength = Declared;
        request.Content.Headers.ContentType = new MediaTypeHeaderValue("application/octet-stream");

        // A connection of its own: Kestrel measures the HTTP/2 rate per connection, so on the shared client another
        // test's upload running alongside would lift the trickle over the minimum and it would be stored (seen in CI).
        using var ownConnection = ServerHarness.CreatePinnedClient(server.CertificateFingerprint);
        HttpResponseMessage? response = null;
        try
        {
            response = await ownConnection.SendAsync(request);
        }
        catch (Exception cut) when (cut is HttpRequestException or OperationCanceledException)
        {
            // Kestrel enforces the rate per HTTP/2 connection by aborting it: no answer on the stream.
            Assert.True(body.Sent < Declared, $"cut only after the whole body ({body.Sent} bytes): {cut.Message}");
        }

        using (response)
        {
            if (response is not null)
            {
                await ProblemAssert.IsProblemAsync(response, HttpStatusCode.RequestTimeout);
            }
        }

        await AssertLeftNothingAsync(key);
    }

    [Theory]
    [InlineData(Protocol.Http11)]
    [InlineData(Protocol.Http2)]
    public async Task Put_ClientAbortsMidBody_LeavesNothing(Protocol protocol)
    {
        var key = $"{NewRoot()}/aborted.bin";
        var body = new FailingStream(Content(512 * 1024, seed: 121), failAfter: 256 * 1024);
        using var request = server.Request(HttpMethod.Put, protocol, "/files/" + key);
        request.Content = new StreamContent(body, 16 * 1024);
        request.Content.Headers.ContentLength = 512 * 1024;

        await Assert.ThrowsAnyAsync<Exception>(() => server.Client.SendAsync(request));

        await AssertLeftNothingAsync(key);
    }

    /// <summary>
    /// A client that asks for a 16 MiB file and never reads past the first byte holds a connection (HTTP/1.1) or a
    /// stream (HTTP/2) — nothing else: the same file is read whole, replaced and read again meanwhile.
    /// </summary>
    [Theory]
    [InlineData(Protocol.Http11)]
    [InlineData(Protocol.Http2)]
    public async Task Get_SlowReader_DoesNotBlockOtherReadersOrWriters(Protocol slowProtocol)
    {
        var key = $"{NewRoot()}/big.bin";
        var first = Content(16 * Payloads.MiB, seed: 122);
        var second = Content(1000, seed: 123);
        await FilesApi.CreateAsync(server, key, first);
        using var slowClient = ServerHarness.CreatePinnedClient(server.CertificateFingerprint);
        using var slowRequest = server.Request(HttpMethod.Get, slowProtocol, "/files/" + key);
        using var slow = await slowClient.SendAsync(slowRequest, HttpCompletionOption.ResponseHeadersRead);
        await AssertStatusAsync(slow, HttpStatusCode.OK);
        await using var slowBody = await slow.Content.ReadAsStreamAsync();
        Assert.Equal(first[0], (byte)slowBody.ReadByte());

        foreach (var protocol in new[] { Protocol.Http11, Protocol.Http2 })
        {
            using var get = server.Request(HttpMethod.Get, protocol, "/files/" + key);
            using var whole = await server.Client.SendAsync(get);
            await AssertStatusAsync(whole, HttpStatusCode.OK);
            Assert.Equal(Payloads.Hash(first), Payloads.Hash(await whole.Content.ReadAsByteArrayAsync()));
        }

        using (var replaced = await PutAsync(server, key, second))
        {
            await AssertStatusAsync(replaced, HttpStatusCode.NoContent);
        }

        await AssertStoredAsync(server, key, second);
    }

    /// <summary>Nothing under the key (listing, disk, temp files, GET) once the server has noticed, and it still serves.</summary>
    private async Task AssertLeftNothingAsync(string key)
    {
        Assert.True(await EventuallyAsync(() => server.FilesTempFiles().Length == 0), "a temp file outlived the request");
        await AssertAbsentAsync(server, key);
        await server.AssertServingAsync();
    }

    /// <summary>Sends <see cref="TrickleBytes"/> at a time until the declared length, until stopped, or until the server stops taking them.</summary>
    private static async Task TrickleAsync(RawHttpConnection connection, CancellationToken stop)
    {
        try
        {
            for (var sent = 0; sent < Declared; sent += TrickleBytes)
            {
                await connection.SendAsync(new byte[TrickleBytes]);
                await Task.Delay(s_trickleInterval, stop);
            }
        }
        catch (Exception ended) when (ended is System.Net.Sockets.SocketException or ObjectDisposedException or IOException or OperationCanceledException)
        {
        }
    }

    /// <summary>A body that yields <see cref="TrickleBytes"/> every <see cref="s_trickleInterval"/> up to its length.</summary>
    private sealed class TrickleStream(int length) : Stream
    {
        public int Sent { get; private set; }

        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => length;

        public override long Position
        {
            get => Sent;
            set => throw new NotSupportedException();
        }

        public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
        {
            if (Sent >= length)
            {
                return 0;
            }

            await Task.Delay(s_trickleInterval, cancellationToken);
            var count = Math.Min(Math.Min(buffer.Length, TrickleBytes), length - Sent);
            buffer.Span[..count].Clear();
            Sent += count;
            return count;
        }

        public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
            ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException("async only");

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }

    /// <summary>A body that fails after <paramref name="failAfter"/> bytes: HttpClient aborts the request (RST on HTTP/1.1's connection, RST_STREAM on HTTP/2).</summary>
    private sealed class FailingStream(byte[] content, int failAfter) : Stream
    {
        private int _position;

        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => content.Length;

        public override long Position
        {
            get => _position;
            set => throw new NotSupportedException();
        }

        public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
        {
            if (_position >= failAfter)
            {
                // Let the server take in what it has first, so the abort lands mid-write.
                await Task.Delay(200, cancellationToken);
                throw new IOException("The client gave up mid-body.");
            }

            var count = Math.Min(buffer.Length, failAfter - _position);
            content.AsSpan(_position, count).CopyTo(buffer.Span);
            _position += count;
            return count;
        }

        public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
            ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException("async only");

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }
}

public sealed class SlowClientFileSystemTests(FileSystemFilesServer server) : SlowClientTests(server), IClassFixture<FileSystemFilesServer>;

public sealed class SlowClientMemoryTests(MemoryFilesServer server) : SlowClientTests(server), IClassFixture<MemoryFilesServer>;

public sealed class SlowClientS3Tests(S3FilesServer server) : SlowClientTests(server), IClassFixture<S3FilesServer>;
