using System.Net;
using System.Net.Sockets;
using System.Text;
using Freight.Downloads;
using Freight.Lab.Payload;
using Freight.Testing.SlowReaders;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.Logging;

namespace Freight.Tests.Downloads;

/// <summary>
/// A user's app with <see cref="SendFileConnections"/> and its own minimum response data rate (256 KiB/s, 2 s grace),
/// through a real Kestrel on 127.0.0.1:0: the sendfile path lets a waiting flush go only while the client reads at
/// that rate, so a client reading a quarter as fast is cut as Kestrel would cut it on its own path, and one above it
/// gets every byte.
/// </summary>
public sealed class SendFileMinimumRateTests : IAsyncLifetime
{
    private const int FileLength = 64 * 1024 * 1024;
    private const int MinBytesPerSecond = 256 * 1024;

    // A small receive buffer: the server's sends wait on this client's reads, not on the kernel's buffering.
    private const int ReceiveBufferBytes = 32 * 1024;

    // Ample for the 2 s grace and Kestrel's 1 s heartbeat; the cut comes well before.
    private static readonly TimeSpan s_pacedPhase = TimeSpan.FromSeconds(15);

    private readonly TempDirectory _dir = new();
    private readonly FileCache _cache = new(new FileCacheOptions());
    private WebApplication? _app;
    private Uri? _address;

    public async Task InitializeAsync()
    {
        if (!LinuxSendFile.IsSupported)
        {
            return;
        }

        var path = _dir.Combine("large.bin");
        DeterministicPayload.WriteFile(path, FileLength, seed: 23);

        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(kestrel =>
        {
            kestrel.Limits.MinResponseDataRate = new MinDataRate(MinBytesPerSecond, TimeSpan.FromSeconds(2));
            kestrel.Listen(IPAddress.Loopback, 0, listen => listen.Use(SendFileConnections.Use));
        });
        _app = builder.Build();
        _app.MapGet("/large.bin", async context => await FileResponder.TrySendAsync(context, _cache, path));
        await _app.StartAsync();
        _address = new Uri(_app.Urls.First());
    }

    public async Task DisposeAsync()
    {
        if (_app is not null)
        {
            await _app.DisposeAsync();
        }

        _dir.Dispose();
    }

    [Fact]
    public async Task Get_ClientUnderTheAppsMinimumRate_IsCut()
    {
        if (_address is null)
        {
            return;
        }

        var (received, cut) = await DownloadAsync(MinBytesPerSecond / 4);

        Assert.True(cut, $"a client at a quarter of the minimum rate got all {received} bytes");
    }

    [Fact]
    public async Task Get_ClientOverTheAppsMinimumRate_GetsEveryByte()
    {
        if (_address is null)
        {
            return;
        }

        var (received, cut) = await DownloadAsync(MinBytesPerSecond * 3);

        Assert.False(cut, $"a client at three times the minimum rate was cut after {received} bytes");
        Assert.Equal(FileLength, received);
    }

    /// <summary>GETs the file on a raw socket, reading at <paramref name="bytesPerSecond"/> for <see cref="s_pacedPhase"/> and freely after; the body bytes read and whether the server closed first.</summary>
    private async Task<(long Received, bool Cut)> DownloadAsync(int bytesPerSecond)
    {
        using var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = ReceiveBufferBytes };
        await socket.ConnectAsync(_address!.Host, _address.Port);
        await socket.SendAsync(Encoding.ASCII.GetBytes($"GET /large.bin HTTP/1.1\r\nHost: {_address.Authority}\r\n\r\n"), SocketFlags.None);

        var buffer = new byte[64 * 1024];
        var filled = 0;
        int headEnd;
        while ((headEnd = buffer.AsSpan(0, filled).IndexOf("\r\n\r\n"u8)) < 0)
        {
            var read = await socket.ReceiveAsync(buffer.AsMemory(filled), SocketFlags.None);
            Assert.True(read > 0, "the server closed the connection before the response head");
            filled += read;
        }

        Assert.StartsWith("HTTP/1.1 200 ", Encoding.ASCII.GetString(buffer, 0, headEnd), StringComparison.Ordinal);
        var expected = DeterministicPayload.Create(FileLength, seed: 23);
        long received = filled - headEnd - 4;
        Assert.True(expected.AsSpan(0, (int)received).SequenceEqual(buffer.AsSpan(headEnd + 4, (int)received)));
        return await PacedReader.ReadAsync(
            socket, buffer, received, FileLength, bytesPerSecond, s_pacedPhase, (bytes, count, at) =>
                Assert.True(expected.AsSpan((int)at, count).SequenceEqual(bytes.AsSpan(0, count)), $"the body differs from the file within bytes {at}–{at + count}"));
    }
}
