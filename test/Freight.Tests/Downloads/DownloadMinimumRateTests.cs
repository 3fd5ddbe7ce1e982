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
/// A user's app with its own minimum response data rate (256 KiB/s, 4 s grace), through a real Kestrel on 127.0.0.1:0, on
/// both download paths: with <see cref="SendFileConnections"/> (sendfile) and without (the copying path, as over TLS). A
/// client reading a quarter as fast is cut, and one above the rate gets every byte. (A client that stops reading at
/// Kestrel's default rate is the server's suite's: SlowClientDownloadTests.)
/// </summary>
public sealed class DownloadMinimumRateTests : IAsyncLifetime
{
    private const int FileLength = 64 * 1024 * 1024;
    private const int MinBytesPerSecond = 256 * 1024;

    // A small receive buffer: the server's sends wait on this client's reads, not on the kernel's buffering.
    private const int ReceiveBufferBytes = 32 * 1024;

    // The app's grace. Kestrel cuts a response whose flush has waited this long; Freight lets a waiting flush go at each
    // check of the client it passes, once a second, on the thread pool. At 2 s a client at three times the rate was
    // cut once under the whole suite's load, where the pool served the client too (PacedReader now has a thread of its
    // own) and a late check leaves a second before Kestrel's timer; 4 s leaves three.
    private static readonly TimeSpan s_grace = TimeSpan.FromSeconds(4);

    // Ample for the grace and a check of the client a second; the cut comes well before.
    private static readonly TimeSpan s_pacedPhase = TimeSpan.FromSeconds(15);

    private readonly TempDirectory _dir = new();
    private readonly FileCache _cache = new(new FileCacheOptions());
    private readonly Dictionary<string, (WebApplication App, Uri Address)> _servers = [];
    private string _path = "";

    public static TheoryData<string> Paths => ["sendfile", "copying"];

    public async Task InitializeAsync()
    {
        _path = _dir.Combine("large.bin");
        DeterministicPayload.WriteFile(_path, FileLength, seed: 23);
        if (LinuxSendFile.IsSupported)
        {
            _servers["sendfile"] = await StartAsync(listen => listen.Use(SendFileConnections.Use));
        }

        _servers["copying"] = await StartAsync(_ => { });
    }

    private async Task<(WebApplication, Uri)> StartAsync(Action<ListenOptions> configure)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(kestrel =>
        {
            kestrel.Limits.MinResponseDataRate = new MinDataRate(MinBytesPerSecond, s_grace);
            kestrel.Listen(IPAddress.Loopback, 0, configure);
        });
        var app = builder.Build();
        app.MapGet("/large.bin", async context => await FileResponder.TrySendAsync(context, _cache, _path));
        await app.StartAsync();
        return (app, new Uri(app.Urls.First()));
    }

    public async Task DisposeAsync()
    {
        foreach (var (app, _) in _servers.Values)
        {
            await app.DisposeAsync();
        }

        _dir.Dispose();
    }

    [Theory]
    [MemberData(nameof(Paths))]
    public async Task Get_ClientUnderTheAppsMinimumRate_IsCut(string path)
    {
        if (!_servers.TryGetValue(path, out var server))
        {
            return;
        }

        var (received, cut) = await DownloadAsync(server.Address, MinBytesPerSecond / 4);

        Assert.True(cut, $"a client at a quarter of the minimum rate got all {received} bytes");
    }

    [Theory]
    [MemberData(nameof(Paths))]
    public async Task Get_ClientOverTheAppsMinimumRate_GetsEveryByte(string path)
    {
        if (!_servers.TryGetValue(path, out var server))
        {
            return;
        }

        var (received, cut) = await DownloadAsync(server.Address, MinBytesPerSecond * 3);

        Assert.False(cut, $"a client at three times the minimum rate was cut after {received} bytes");
        Assert.Equal(FileLength, received);
    }

    /// <summary>GETs the file on a raw socket, reading at <paramref name="bytesPerSecond"/> for <see cref="s_pacedPhase"/> and freely after; the body bytes read and whether the server closed first.</summary>
    private static async Task<(long Received, bool Cut)> DownloadAsync(Uri address, int bytesPerSecond)
    {
        using var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = ReceiveBufferBytes };
        await socket.ConnectAsync(address.Host, address.Port);
        await socket.SendAsync(Encoding.ASCII.GetBytes($"GET /large.bin HTTP/1.1\r\nHost: {address.Authority}\r\n\r\n"), SocketFlags.None);

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
