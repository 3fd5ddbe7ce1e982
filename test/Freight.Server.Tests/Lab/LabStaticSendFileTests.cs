using System.Globalization;
using System.Text;
using Freight.Downloads;
using Freight.Lab.Payload;
using Freight.Server.Lab;
using Freight.Server.Tests.Infrastructure;
using Microsoft.AspNetCore.WebUtilities;
using Microsoft.Net.Http.Headers;

namespace Freight.Server.Tests.Lab;

/// <summary>The lab's static server with Freight:SendFile off: every cleartext body is copied into the process.</summary>
public sealed class CopyingStaticServer() : ServerHarness("--Freight:SendFile", "false");

/// <summary>
/// The lab's 128 KiB file and ranges around <see cref="FileResponder.SendFileAboveBytes"/> on cleartext HTTP/1.1, with
/// sendfile on (bodies over 64 KiB that are not cached leave by sendfile(2)) and off (copied): the same bytes and
/// framing either way, keep-alive after each response, and a multipart body under 256 KiB whose large part went by
/// sendfile still ends with its close delimiter.
/// </summary>
public abstract class LabStaticSendFileTests(ServerHarness server, bool sendFileOn)
{
    private const int Size = 128 * 1024;

    private static readonly byte[] s_file = DeterministicPayload.Create(Size);

    private static string PathOf(long size) => $"/lab/static/freight/{LabStaticFiles.FileName(size)}";

    /// <summary>What sendfile should have sent of <paramref name="bytes"/>: all of it when on, none when off.</summary>
    private long BySendFile(long bytes) => sendFileOn ? bytes : 0;

    [Fact]
    public async Task Get_128KiBFileThenSmallFileOnOneConnection_ExactBodiesAndTheConnectionKeptAlive()
    {
        using var sendfile = new PortMeter("freight.sendfile.bytes", server.HttpAddress);
        await using var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);

        await connection.SendAsync(RawHttpConnection.Head("GET", server.HttpAddress, PathOf(Size)));
        var first = await connection.ReadResponseAsync();
        await connection.SendAsync(RawHttpConnection.Head("GET", server.HttpAddress, PathOf(Size)));
        var second = await connection.ReadResponseAsync();
        await connection.SendAsync(RawHttpConnection.Head("GET", server.HttpAddress, PathOf(4096)));
        var third = await connection.ReadResponseAsync();

        Assert.Equal(200, first.StatusCode);
        Assert.Equal(Size.ToString(CultureInfo.InvariantCulture), first.Header("Content-Length"));
        Assert.Null(first.Header("Connection"));
        Assert.Equal(s_file, first.Body);
        Assert.Equal(200, second.StatusCode);
        Assert.Equal(s_file, second.Body);
        Assert.Equal(200, third.StatusCode);
        Assert.Equal(DeterministicPayload.Create(4096), third.Body);
        Assert.Equal(BySendFile(2L * Size), sendfile.Sum);
    }

    [Theory]
    [InlineData(1000, FileResponder.SendFileAboveBytes + 1)]
    [InlineData(0, Size)]
    public async Task Get_SingleRangeOver64KiB_206WithThoseBytesThenKeptAlive(int first, int count)
    {
        using var sendfile = new PortMeter("freight.sendfile.bytes", server.HttpAddress);
        await using var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);
        var last = first + count - 1;

        await connection.SendAsync(RawHttpConnection.Head("GET", server.HttpAddress, PathOf(Size), FormattableString.Invariant($"Range: bytes={first}-{last}")));
        var ranged = await connection.ReadResponseAsync();
        await connection.SendAsync(RawHttpConnection.Head("GET", server.HttpAddress, PathOf(4096)));
        var after = await connection.ReadResponseAsync();

        Assert.Equal(206, ranged.StatusCode);
        Assert.Equal(FormattableString.Invariant($"bytes {first}-{last}/{Size}"), ranged.Header("Content-Range"));
        Assert.Equal(s_file.AsSpan(first, count).ToArray(), ranged.Body);
        Assert.Equal(200, after.StatusCode);
        Assert.Equal(DeterministicPayload.Create(4096), after.Body);
        Assert.Equal(BySendFile(count), sendfile.Sum);
    }

    [Fact]
    public async Task Get_SingleRangeOfExactly64KiB_206CopiedNotBySendfile()
    {
        using var sendfile = new PortMeter("freight.sendfile.bytes", server.HttpAddress);
        const int First = 5000;
        const int Count = FileResponder.SendFileAboveBytes;

        var wire = await RawExchange.SendAndReadToEndAsync(
            server.HttpAddress,
            RawHttpConnection.Head("GET", server.HttpAddress, PathOf(Size), FormattableString.Invariant($"Range: bytes={First}-{First + Count - 1}"), "Connection: close"));

        var (head, rest) = RawExchange.SplitHead(wire);
        Assert.StartsWith("HTTP/1.1 206 ", head, StringComparison.Ordinal);
        Assert.Equal(Count.ToString(CultureInfo.InvariantCulture), RawExchange.Header(head, "Content-Length"));
        Assert.Equal(s_file.AsSpan(First, Count).ToArray(), rest);
        Assert.Equal(0, sendfile.Sum);
    }

    [Fact]
    public async Task Get_SmallMultipartWithOnePartOver64KiB_EachPartExactCloseDelimiterSentAndKeptAlive()
    {
        // 100,000 + 10,001 bytes of parts: under FileResponder.WholeWriteMaxBytes, but the first part is over
        // SendFileAboveBytes, so with sendfile on it flushes mid-body and the close delimiter needs its own flush.
        (int First, int Last)[] ranges = [(0, 99_999), (120_000, 130_000)];
        using var sendfile = new PortMeter("freight.sendfile.bytes", server.HttpAddress);
        await using var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);

        await connection.SendAsync(RawHttpConnection.Head("GET", server.HttpAddress, PathOf(Size), "Range: bytes=0-99999,120000-130000"));
        var multipart = await connection.ReadResponseAsync();
        await connection.SendAsync(RawHttpConnection.Head("GET", server.HttpAddress, PathOf(4096)));
        var after = await connection.ReadResponseAsync();

        Assert.Equal(206, multipart.StatusCode);
        Assert.Null(multipart.Header("Transfer-Encoding"));
        var boundary = HeaderUtilities.RemoveQuotes(MediaTypeHeaderValue.Parse(multipart.Header("Content-Type")!).Boundary).ToString();
        Assert.EndsWith($"\r\n--{boundary}--\r\n", Encoding.Latin1.GetString(multipart.Body), StringComparison.Ordinal);
        var reader = new MultipartReader(boundary, new MemoryStream(multipart.Body));
        foreach (var (first, last) in ranges)
        {
            var section = await reader.ReadNextSectionAsync();
            Assert.NotNull(section);
            Assert.Equal($"bytes {first}-{last}/{Size}", section.Headers!["Content-Range"].ToString());
            using var part = new MemoryStream();
            await section.Body.CopyToAsync(part);
            Assert.Equal(s_file.AsSpan(first, last - first + 1).ToArray(), part.ToArray());
        }

        Assert.Null(await reader.ReadNextSectionAsync());
        Assert.Equal(200, after.StatusCode);
        Assert.Equal(DeterministicPayload.Create(4096), after.Body);
        Assert.Equal(BySendFile(100_000), sendfile.Sum);
    }
}

/// <summary><see cref="LabStaticSendFileTests"/> with sendfile on (the default).</summary>
public sealed class LabStaticSendFileOnTests(LabServer server) : LabStaticSendFileTests(server, sendFileOn: true), IClassFixture<LabServer>;

/// <summary><see cref="LabStaticSendFileTests"/> with Freight:SendFile off.</summary>
public sealed class LabStaticSendFileOffTests(CopyingStaticServer server) : LabStaticSendFileTests(server, sendFileOn: false), IClassFixture<CopyingStaticServer>;
