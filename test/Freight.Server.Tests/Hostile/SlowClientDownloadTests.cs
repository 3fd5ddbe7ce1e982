using System.Globalization;
using System.Net.Sockets;
using System.Security.Cryptography;
using System.Text;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using Freight.Testing.SlowReaders;
using Microsoft.Extensions.Logging;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// A client that downloads a large file slowly but steadily — 16, 100 or 300 KiB/s, tens to thousands of times
/// Kestrel's minimum response data rate (240 B/s) — is not cut, on the sendfile path and on the copying path. Kestrel
/// times each flush of a body written through GetMemory/Advance against its 5 s grace alone, whatever its size, so a
/// body flushed in 1 MiB pieces was cut from such a client (docs/results/2026-11-25-sendfile.md), and so was a client
/// at 16 KiB/s on the sendfile path, whose socket let a send wait until 512 KiB had been read
/// (docs/results/2026-11-28-slow-readers.md). A client under the rate, or one that stops, is cut on both paths and logged
/// once (docs/results/2026-11-28-stalled-readers.md).
/// </summary>
public abstract class SlowClientDownloadTests(FilesServer server)
{
    protected const int Size = 64 * Payloads.MiB;

    // Long enough for several 1 MiB flushes at either rate: the cut was seen after 26 s, and a cut in this phase
    // fails the test whenever it comes. The rest is read as fast as the client can.
    private static readonly TimeSpan s_slowPhase = TimeSpan.FromSeconds(30);

    // A small receive buffer: the server's sends wait on this client's reads, not on the kernel's buffering.
    private const int ReceiveBufferBytes = 32 * 1024;

    // 300 KiB/s: the rate of the cut seen with curl (it needs a stall of the client or the machine to fail);
    // 100 KiB/s: under the ~170–205 KiB/s that 1 MiB flushes demanded, so the old pacing fails it every time;
    // 16 KiB/s: the sendfile path's socket made a send wait 32 s for it (cut after 8 s every time).
    [Theory]
    [InlineData(300 * 1024)]
    [InlineData(100 * 1024)]
    [InlineData(16 * 1024)]
    public async Task Get_ClientReadingSlowlyButSteadily_IsNotCutAndGetsEveryByte(int bytesPerSecond)
    {
        var (content, started) = await StartDownloadAsync(seed: 131);
        using var download = started;

        var (received, cut) = await download.ReadAsync(bytesPerSecond, s_slowPhase);

        Assert.False(cut, $"the server closed the connection after {received} of {Size} body bytes");
        Assert.Equal(SHA256.HashData(content), download.Hash.GetHashAndReset());
    }

    // Kestrel's 5 s grace and a check a second, with room to spare: a client under the minimum rate this long is cut.
    private static readonly TimeSpan s_underMinimumPhase = TimeSpan.FromSeconds(20);

    /// <summary>
    /// 0: a client that stops reading after the head; 100 B/s: under Kestrel's 240. Neither may hold the response for
    /// ever: on the copying path, Kestrel's own timer did not cut either in 20 s, and the client then took every byte.
    /// </summary>
    [Theory]
    [InlineData(0)]
    [InlineData(100)]
    public async Task Get_ClientReadingUnderTheMinimumRate_IsCutAndLoggedOnce(int bytesPerSecond)
    {
        var (_, started) = await StartDownloadAsync(seed: 137);
        using var download = started;
        using var cuts = new PortMeter("freight.download.cut", server.HttpAddress);
        var mark = server.Logs.Count;

        var (received, cut) = await download.ReadAsync(bytesPerSecond, s_underMinimumPhase);

        Assert.True(cut, $"a client reading {bytesPerSecond} B/s for {s_underMinimumPhase.TotalSeconds} s got every byte");
        Assert.True(received < Size);
        AssertCutOnce(server, mark, cuts);
        await AssertStillServesAsync();
    }

    /// <summary>
    /// The cut was Freight's, on every path: one log line says the client read under the minimum rate, and
    /// <c>freight.download.cut</c> counted one on the listener.
    /// </summary>
    internal static void AssertCutOnce(FilesServer server, int mark, PortMeter cuts)
    {
        var entries = server.Logs.Since(mark, LogLevel.Information);
        Assert.Single(entries, entry => entry.Message.Contains("minimum", StringComparison.OrdinalIgnoreCase) && entry.Message.Contains("rate", StringComparison.OrdinalIgnoreCase));
        Assert.Equal(1, cuts.Sum);
    }

    /// <summary>The server still stores and serves files after cutting the client.</summary>
    protected Task AssertStillServesAsync() => AssertStillServesAsync(server);

    internal static async Task AssertStillServesAsync(FilesServer server)
    {
        var key = $"{NewRoot()}/after-the-cut.bin";
        var content = Content(64 * 1024, seed: 139);
        await CreateAsync(server, key, content);
        await AssertStoredAsync(server, key, content);
    }

    /// <summary>Stores a <see cref="Size"/> file, asks for it on a raw socket with a small receive buffer and reads the head.</summary>
    protected async Task<(byte[] Content, Download Download)> StartDownloadAsync(ulong seed)
    {
        var key = $"{NewRoot()}/slow-reader.bin";
        var content = Content(Size, seed);
        await CreateAsync(server, key, content);

        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = ReceiveBufferBytes };
        await socket.ConnectAsync(server.HttpAddress.Host, server.HttpAddress.Port);
        await socket.SendAsync(RawHttpConnection.Head("GET", server.HttpAddress, "/files/" + key), SocketFlags.None);

        var buffer = new byte[64 * 1024];
        var (length, bodyStart, bodyEnd) = await ReadHeadAsync(socket, buffer);
        Assert.Equal(Size, length);
        var download = new Download(socket, buffer, IncrementalHash.CreateHash(HashAlgorithmName.SHA256), length);
        download.Hash.AppendData(buffer, bodyStart, bodyEnd - bodyStart);
        download.Received = bodyEnd - bodyStart;
        return (content, download);
    }

    /// <summary>A response body being read on a raw socket, hashed as it comes.</summary>
    protected sealed class Download(Socket socket, byte[] buffer, IncrementalHash hash, long length) : IDisposable
    {
        public IncrementalHash Hash { get; } = hash;

        public long Received { get; set; }

        /// <summary>
        /// Reads the rest of the body, paced at <paramref name="bytesPerSecond"/> (0: nothing at all) for
        /// <paramref name="slowPhase"/> and as fast as it comes after; whether the server closed it first.
        /// </summary>
        public async Task<(long Received, bool Cut)> ReadAsync(int bytesPerSecond, TimeSpan slowPhase)
        {
            var (received, cut) = await PacedReader.ReadAsync(
                socket, buffer, Received, length, bytesPerSecond, slowPhase, (bytes, count, _) => Hash.AppendData(bytes, 0, count));
            Received = received;
            return (received, cut);
        }

        public void Dispose()
        {
            socket.Dispose();
            Hash.Dispose();
        }
    }

    /// <summary>Reads the status line and headers; returns the Content-Length and where the body's first bytes lie in <paramref name="buffer"/>.</summary>
    private static async Task<(long Length, int BodyStart, int BodyEnd)> ReadHeadAsync(Socket socket, byte[] buffer)
    {
        var filled = 0;
        while (true)
        {
            var read = await PacedReader.ReceiveOrZeroAsync(socket, buffer.AsMemory(filled, 4096));
            Assert.True(read > 0, "the server closed the connection before the response head");
            filled += read;
            var end = buffer.AsSpan(0, filled).IndexOf("\r\n\r\n"u8);
            if (end < 0)
            {
                continue;
            }

            var head = Encoding.ASCII.GetString(buffer, 0, end);
            Assert.StartsWith("HTTP/1.1 200 ", head, StringComparison.Ordinal);
            var lengthLine = head.Split("\r\n").Single(line => line.StartsWith("Content-Length:", StringComparison.OrdinalIgnoreCase));
            return (long.Parse(lengthLine["Content-Length:".Length..].Trim(), CultureInfo.InvariantCulture), end + 4, filled);
        }
    }
}

public sealed class SlowClientDownloadSendFileTests(FileSystemFilesServer server) : SlowClientDownloadTests(server), IClassFixture<FileSystemFilesServer>;

public sealed class SlowClientDownloadCopyingTests(CopyingFilesServer server) : SlowClientDownloadTests(server), IClassFixture<CopyingFilesServer>;
