using System.Globalization;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Lab;

/// <summary>
/// The lab's <c>download/freight</c> is Freight's file path as a user's route gets it (<c>FreightResults.File</c>): on
/// cleartext HTTP/1.1 its body leaves by sendfile(2) when sendfile is on and is copied when it is off, the same bytes
/// either way, ranges answered, and the connection kept alive for the next request.
/// </summary>
public abstract class LabDownloadSendFileTests(ServerHarness server, bool sendFileOn)
{
    private const int Size = 3 * Payloads.MiB + 7;

    private static string PathOf(int size) => $"/lab/download/freight?size={size.ToString(CultureInfo.InvariantCulture)}";

    [Fact]
    public async Task Get_FreightVariantThenAnother_ExactBodiesBySendFileWhenOnAndTheConnectionKeptAlive()
    {
        using var sendfile = new PortMeter("freight.sendfile.bytes", server.HttpAddress);
        await using var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);

        await connection.SendAsync(RawHttpConnection.Head("GET", server.HttpAddress, PathOf(Size)));
        var first = await connection.ReadResponseAsync();
        await connection.SendAsync(RawHttpConnection.Head("GET", server.HttpAddress, "/lab/download/bytes?size=10"));
        var second = await connection.ReadResponseAsync();

        Assert.Equal(200, first.StatusCode);
        Assert.Equal(Size.ToString(CultureInfo.InvariantCulture), first.Header("Content-Length"));
        Assert.NotNull(first.Header("ETag"));
        Assert.Equal(Payloads.Hash(Size), Payloads.Hash(first.Body));
        Assert.Equal(200, second.StatusCode);
        Assert.Equal(Payloads.Bytes(10), second.Body);
        Assert.Equal(sendFileOn ? Size : 0, sendfile.Sum);
    }

    [Fact]
    public async Task Get_FreightVariantWithARange_206WithThoseBytes()
    {
        const int first = Payloads.MiB + 3;
        const int count = Payloads.MiB;
        await using var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);

        await connection.SendAsync(RawHttpConnection.Head(
            "GET", server.HttpAddress, PathOf(Size), $"Range: bytes={first}-{first + count - 1}"));
        var response = await connection.ReadResponseAsync();

        Assert.Equal(206, response.StatusCode);
        Assert.Equal($"bytes {first}-{first + count - 1}/{Size}", response.Header("Content-Range"));
        Assert.Equal(Payloads.Bytes(Size).AsSpan(first, count).ToArray(), response.Body);
    }
}

public sealed class LabDownloadSendFileOnTests(LabServer server) : LabDownloadSendFileTests(server, sendFileOn: true), IClassFixture<LabServer>;

public sealed class LabDownloadSendFileOffTests(CopyingStaticServer server) : LabDownloadSendFileTests(server, sendFileOn: false), IClassFixture<CopyingStaticServer>;
