using System.Globalization;
using System.Net;
using System.Security.Cryptography;
using System.Text;
using Freight.Server.Tests.Infrastructure;
using Microsoft.AspNetCore.WebUtilities;
using Microsoft.Net.Http.Headers;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Files;

/// <summary>
/// Large file bodies on cleartext HTTP/1.1 go by sendfile(2) (Freight:SendFile, on by default): the connection
/// stays usable afterwards, ranges and multipart parts carry the right bytes, a client that leaves mid-body
/// releases the file, HTTPS and HTTP/2 get the same bytes by the copying path, and offsets past 2^32 arrive whole.
/// The existing files suites run on both paths (their *Copying* fixtures turn sendfile off).
/// </summary>
public sealed class FilesSendFileTests(FileSystemFilesServer server) : IClassFixture<FileSystemFilesServer>
{
    // Above FileResponder.WholeWriteMaxBytes (256 KiB) too: sendfile in several 64 KiB stand-in pieces.
    private const int Size = 3 * Payloads.MiB + 12_345;

    [Fact]
    public async Task Get_TwoRequestsOnOneConnection_BothBodiesExactAndTheConnectionKeptAlive()
    {
        var key = $"{NewRoot()}/twice.bin";
        var content = Content(Size, seed: 71);
        await CreateAsync(server, key, content);
        using var sendfile = new PortMeter("freight.sendfile.bytes", server.HttpAddress);
        await using var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);

        await connection.SendAsync(RawHttpConnection.Head("GET", server.HttpAddress, "/files/" + key));
        var first = await connection.ReadResponseAsync();
        await connection.SendAsync(RawHttpConnection.Head("GET", server.HttpAddress, "/files/" + key, "Range: bytes=100000-2999999"));
        var second = await connection.ReadResponseAsync();

        Assert.Equal(200, first.StatusCode);
        Assert.Null(first.Header("Connection"));
        Assert.Equal(SHA256.HashData(content), SHA256.HashData(first.Body));
        Assert.Equal(206, second.StatusCode);
        Assert.Equal("bytes 100000-2999999/" + Size.ToString(CultureInfo.InvariantCulture), second.Header("Content-Range"));
        Assert.Equal(SHA256.HashData(content.AsSpan(100_000, 2_900_000)), SHA256.HashData(second.Body));
        Assert.Equal(Size + 2_900_000L, sendfile.Sum);
    }

    [Fact]
    public async Task Get_LargeSingleRange_206WithExactlyThoseBytes()
    {
        var key = $"{NewRoot()}/range.bin";
        var content = Content(Size, seed: 72);
        await CreateAsync(server, key, content);
        using var sendfile = new PortMeter("freight.sendfile.bytes", server.HttpAddress);

        using var response = await SendAsync(server, HttpMethod.Get, "/files/" + key, ("Range", "bytes=1-1500000"));

        Assert.Equal(HttpStatusCode.PartialContent, response.StatusCode);
        Assert.Equal(content.AsSpan(1, 1_500_000).ToArray(), await response.Content.ReadAsByteArrayAsync());
        Assert.Equal(1_500_000, sendfile.Sum);
    }

    [Fact]
    public async Task Get_LargeMultiRange_EachPartExactAndTheCloseDelimiterSent()
    {
        var key = $"{NewRoot()}/parts.bin";
        var content = Content(Size, seed: 73);
        await CreateAsync(server, key, content);
        (int First, int Last)[] ranges = [(0, 399_999), (1_000_000, 1_999_999), (Size - 300_000, Size - 1)];
        using var sendfile = new PortMeter("freight.sendfile.bytes", server.HttpAddress);

        using var response = await SendAsync(server, HttpMethod.Get, "/files/" + key, ("Range", "bytes=0-399999,1000000-1999999,-300000"));

        Assert.Equal(HttpStatusCode.PartialContent, response.StatusCode);
        var body = await response.Content.ReadAsByteArrayAsync();
        Assert.Equal(response.Content.Headers.ContentLength, body.Length);
        var boundary = HeaderUtilities.RemoveQuotes(MediaTypeHeaderValue.Parse(response.Content.Headers.ContentType!.ToString()).Boundary).ToString();
        Assert.EndsWith($"\r\n--{boundary}--\r\n", Encoding.Latin1.GetString(body, body.Length - 100, 100), StringComparison.Ordinal);
        var reader = new MultipartReader(boundary, new MemoryStream(body));
        foreach (var (first, last) in ranges)
        {
            var section = await reader.ReadNextSectionAsync();
            Assert.NotNull(section);
            Assert.Equal($"bytes {first}-{last}/{Size}", section.Headers!["Content-Range"].ToString());
            using var part = new MemoryStream();
            await section.Body.CopyToAsync(part);
            Assert.Equal(content.AsSpan(first, last - first + 1).ToArray(), part.ToArray());
        }

        Assert.Null(await reader.ReadNextSectionAsync());
        Assert.Equal(400_000 + 1_000_000 + 300_000, sendfile.Sum);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task Get_ClientLeavesMidBody_FileReleasedReplaceableDeletableAndServerServes(bool reset)
    {
        // Larger than the socket buffers on both sides, so the server is mid-sendfile when the client leaves.
        const int Large = 64 * Payloads.MiB;
        var key = $"{NewRoot()}/left.bin";
        await CreateAsync(server, key, Content(Large, seed: 74));
        var path = server.DiskPath(key);
        await using (var connection = await RawHttpConnection.OpenAsync(server.HttpAddress))
        {
            await connection.SendAsync(RawHttpConnection.Head("GET", server.HttpAddress, "/files/" + key));
            Assert.True(await connection.ReadSomeAsync(256 * 1024) > 0);
            if (reset)
            {
                connection.Reset();
            }
            else
            {
                connection.Close();
            }
        }

        Assert.True(await EventuallyAsync(() => !OpenInThisProcess(path)), "the server still holds the file open");
        var replacement = Content(Size, seed: 75);
        using (var replace = await PutAsync(server, key, replacement))
        {
            await AssertStatusAsync(replace, HttpStatusCode.NoContent);
        }

        using (var get = await SendAsync(server, HttpMethod.Get, "/files/" + key))
        {
            Assert.Equal(HttpStatusCode.OK, get.StatusCode);
            Assert.Equal(SHA256.HashData(replacement), SHA256.HashData(await get.Content.ReadAsByteArrayAsync()));
        }

        using (var delete = await SendAsync(server, HttpMethod.Delete, "/files/" + key))
        {
            Assert.Equal(HttpStatusCode.NoContent, delete.StatusCode);
        }

        Assert.False(File.Exists(path));
        Assert.True(await EventuallyAsync(() => !OpenInThisProcess(path)), "the deleted file is still open");
    }

    [Fact]
    public async Task Get_FileCutShortMidBody_ConnectionEndsEarlyFailureLoggedOnceAndServerServes()
    {
        // Unlike a client that leaves, a stored file cut short behind the server's back (by hand, on disk) is the
        // server's fault: the client must not get a body that looks whole, and the failure must be logged, once.
        const int Large = 64 * Payloads.MiB;
        var key = $"{NewRoot()}/cut.bin";
        await CreateAsync(server, key, Content(Large, seed: 78));
        var path = server.DiskPath(key);
        var mark = server.Logs.Count;
        await using (var connection = await RawHttpConnection.OpenAsync(server.HttpAddress))
        {
            await connection.SendAsync(RawHttpConnection.Head("GET", server.HttpAddress, "/files/" + key));
            var read = await connection.ReadSomeAsync(256 * 1024);
            using (var cut = new FileStream(path, FileMode.Open, FileAccess.Write, FileShare.ReadWrite))
            {
                cut.SetLength(Payloads.MiB);
            }

            // The server resets the connection: the rest is what arrived before.
            read += (await connection.ReadUntilClosedAsync()).Length;
            Assert.True(read < Large, $"the client read {read} bytes, a whole body's worth");
        }

        Assert.True(await EventuallyAsync(() => !OpenInThisProcess(path)), "the server still holds the file open");
        var error = Assert.Single(server.Logs.Since(mark, Microsoft.Extensions.Logging.LogLevel.Error));
        Assert.Contains("ended", error.Message, StringComparison.Ordinal);
        await server.AssertServingAsync();
    }

    [Fact]
    public async Task Get_ManyClientsLeaveMidBody_NothingLoggedAsAnErrorAndServerServes()
    {
        // A client that goes away mid-download is no fault of the server's, nor of the application: Kestrel's own
        // transport lets it go quietly. On the sendfile path each one used to be logged twice at Error, with stack
        // traces ("An unhandled exception was thrown by the application", "Unexpected exception in
        // TimingPipeFlusher.FlushAsync"): hundreds a second when a load test ended its connections.
        const int Large = 32 * Payloads.MiB;
        const int Clients = 12;
        var key = $"{NewRoot()}/leavers.bin";
        await CreateAsync(server, key, Content(Large, seed: 77));
        var path = server.DiskPath(key);
        var mark = server.Logs.Count;

        await Task.WhenAll(Enumerable.Range(0, Clients).Select(async client =>
        {
            await using var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);
            // Every third asks for three large ranges: a multipart body, left in its first part.
            await connection.SendAsync(client % 3 == 2
                ? RawHttpConnection.Head("GET", server.HttpAddress, "/files/" + key, "Range: bytes=0-9999999,10000000-19999999,20000000-29999999")
                : RawHttpConnection.Head("GET", server.HttpAddress, "/files/" + key));
            Assert.True(await connection.ReadSomeAsync(128 * 1024) > 0);
            if (client % 2 == 0)
            {
                connection.Reset();
            }
            else
            {
                connection.Close();
            }
        }));

        // The responses have ended once the file is closed; an error they logged would be in by then.
        Assert.True(await EventuallyAsync(() => !OpenInThisProcess(path)), "the server still holds the file open");
        Assert.Empty(server.Logs.Since(mark, Microsoft.Extensions.Logging.LogLevel.Error));
        await server.AssertServingAsync();
    }

    [Theory]
    [InlineData(Protocol.Http11)]
    [InlineData(Protocol.Http2)]
    public async Task Get_OverHttps_CopyingPathSendsTheExactBytes(Protocol protocol)
    {
        var key = $"{NewRoot()}/tls.bin";
        var content = Content(Size, seed: 76);
        await CreateAsync(server, key, content);

        // https:// in both cases; Request picks HTTPS for HTTP/2 only, so HTTP/1.1 over TLS is asked for explicitly.
        using var request = new HttpRequestMessage(HttpMethod.Get, new Uri(server.HttpsAddress, "/files/" + key))
        {
            Version = protocol == Protocol.Http2 ? HttpVersion.Version20 : HttpVersion.Version11,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
        };
        request.Headers.TryAddWithoutValidation("Range", "bytes=5-2999999");
        using var sendfile = new PortMeter("freight.sendfile.bytes", server.HttpsAddress);
        using var response = await server.Client.SendAsync(request);

        Assert.Equal(protocol == Protocol.Http2 ? HttpVersion.Version20 : HttpVersion.Version11, response.Version);
        Assert.Equal(HttpStatusCode.PartialContent, response.StatusCode);
        Assert.Equal(SHA256.HashData(content.AsSpan(5, 2_999_995)), SHA256.HashData(await response.Content.ReadAsByteArrayAsync()));
        Assert.Equal(0, sendfile.Sum);
    }
}

/// <summary>With Freight:SendFile off, a large body is copied: the same bytes, none by sendfile.</summary>
public sealed class FilesSendFileOffTests(CopyingFilesServer server) : IClassFixture<CopyingFilesServer>
{
    [Fact]
    public async Task Get_SendFileOff_TheExactBytesAndNoneBySendfile()
    {
        var key = $"{NewRoot()}/copied.bin";
        var content = Content(3 * Payloads.MiB, seed: 77);
        await CreateAsync(server, key, content);
        using var sendfile = new PortMeter("freight.sendfile.bytes", server.HttpAddress);

        using var response = await SendAsync(server, HttpMethod.Get, "/files/" + key);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(SHA256.HashData(content), SHA256.HashData(await response.Content.ReadAsByteArrayAsync()));
        Assert.Equal(0, sendfile.Sum);
    }
}

/// <summary>
/// A file over 4 GiB (sparse: no disk spent) through Freight's file path on the lab's static directory, with
/// ranges that start before and past 2^31 and 2^32: sendfile's offsets are 64-bit end to end.
/// </summary>
public sealed class SendFileLargeOffsetTests(LabServer server) : IClassFixture<LabServer>
{
    private const long Length = (5L << 30) + 4099;
    private const long Boundary = 1L << 32;

    [Fact]
    public async Task Get_SparseFileOver4GiB_RangesPast2Pow31And2Pow32_ExactBytes()
    {
        var name = $"sparse-{Guid.NewGuid():N}.bin";
        var path = Path.Combine(server.DataDirectory, "lab", "static", name);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        // Written regions around 2^31, across 2^32 and at the very end; the holes between read as zeros.
        var regions = new (long Offset, byte[] Bytes)[]
        {
            ((1L << 31) - 1000, RandomNumberGenerator.GetBytes(700_000)),
            (Boundary - 300_000, RandomNumberGenerator.GetBytes(900_000)),
            (Length - 500_000, RandomNumberGenerator.GetBytes(500_000)),
        };
        using (var file = File.OpenHandle(path, FileMode.CreateNew, FileAccess.Write))
        {
            RandomAccess.SetLength(file, Length);
            foreach (var (offset, bytes) in regions)
            {
                RandomAccess.Write(file, bytes, offset);
            }
        }

        using var sendfile = new PortMeter("freight.sendfile.bytes", server.HttpAddress);
        long expectedSent = 0;
        try
        {
            foreach (var (first, count) in new[] { ((1L << 31) - 500, 600_000L), (Boundary - 200_000, 700_000L), (Length - 400_000, 400_000L) })
            {
                using var request = server.Request(HttpMethod.Get, Protocol.Http11, "/lab/static/freight/" + name);
                request.Headers.TryAddWithoutValidation("Range", FormattableString.Invariant($"bytes={first}-{first + count - 1}"));
                using var response = await server.Client.SendAsync(request);

                Assert.Equal(HttpStatusCode.PartialContent, response.StatusCode);
                Assert.Equal(FormattableString.Invariant($"bytes {first}-{first + count - 1}/{Length}"), response.Content.Headers.ContentRange?.ToString());
                Assert.Equal(Expected(regions, first, count), await response.Content.ReadAsByteArrayAsync());
                expectedSent += count;
            }

            Assert.Equal(expectedSent, sendfile.Sum);
        }
        finally
        {
            File.Delete(path);
        }
    }

    private static byte[] Expected((long Offset, byte[] Bytes)[] regions, long first, long count)
    {
        var expected = new byte[count];
        foreach (var (offset, bytes) in regions)
        {
            var start = Math.Max(first, offset);
            var end = Math.Min(first + count, offset + bytes.Length);
            if (start < end)
            {
                bytes.AsSpan((int)(start - offset), (int)(end - start)).CopyTo(expected.AsSpan((int)(start - first)));
            }
        }

        return expected;
    }
}
