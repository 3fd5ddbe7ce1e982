using System.Diagnostics;
using System.Globalization;
using System.Net.Sockets;
using System.Security.Cryptography;
using System.Text;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// A client that downloads a large file slowly but steadily — 100 or 300 KiB/s, hundreds of times Kestrel's minimum
/// response data rate (240 B/s) — is not cut, on the sendfile path and on the copying path. Kestrel times each
/// flush of a body written through GetMemory/Advance against its 5 s grace alone, whatever its size, so a body
/// flushed in 1 MiB pieces was cut from such a client (docs/results/2026-11-25-sendfile.md).
/// </summary>
public abstract class SlowClientDownloadTests(FilesServer server)
{
    private const int Size = 64 * Payloads.MiB;

    // Long enough for several 1 MiB flushes at either rate: the cut was seen after 26 s, and a cut in this phase
    // fails the test whenever it comes. The rest is read as fast as the client can.
    private static readonly TimeSpan s_slowPhase = TimeSpan.FromSeconds(30);

    // A small receive buffer: the server's sends wait on this client's reads, not on the kernel's buffering.
    private const int ReceiveBufferBytes = 32 * 1024;

    // 300 KiB/s: the rate of the cut seen with curl (it needs a stall of the client or the machine to fail);
    // 100 KiB/s: under the ~170–205 KiB/s that 1 MiB flushes demanded, so the old pacing fails it every time.
    [Theory]
    [InlineData(300 * 1024)]
    [InlineData(100 * 1024)]
    public async Task Get_ClientReadingSlowlyButSteadily_IsNotCutAndGetsEveryByte(int bytesPerSecond)
    {
        var key = $"{NewRoot()}/slow-reader.bin";
        var content = Content(Size, seed: 131);
        await CreateAsync(server, key, content);

        using var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = ReceiveBufferBytes };
        await socket.ConnectAsync(server.HttpAddress.Host, server.HttpAddress.Port);
        await socket.SendAsync(RawHttpConnection.Head("GET", server.HttpAddress, "/files/" + key), SocketFlags.None);

        var buffer = new byte[64 * 1024];
        var (length, bodyStart, bodyEnd) = await ReadHeadAsync(socket, buffer);
        Assert.Equal(Size, length);

        using var hash = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        hash.AppendData(buffer, bodyStart, bodyEnd - bodyStart);
        long received = bodyEnd - bodyStart;
        var clock = Stopwatch.StartNew();
        while (received < length)
        {
            var want = (int)Math.Min(buffer.Length, length - received);
            if (clock.Elapsed < s_slowPhase)
            {
                // Paced: never ahead of the rate since the body began.
                var allowed = (long)(clock.Elapsed.TotalSeconds * bytesPerSecond) - received;
                if (allowed <= 0)
                {
                    await Task.Delay(20);
                    continue;
                }

                want = (int)Math.Min(want, allowed);
            }

            var read = await ReceiveOrZeroAsync(socket, buffer.AsMemory(0, want));
            Assert.True(read > 0, $"the server closed the connection after {received} of {length} body bytes, {clock.Elapsed.TotalSeconds:F1} s in");
            hash.AppendData(buffer, 0, read);
            received += read;
        }

        Assert.Equal(SHA256.HashData(content), hash.GetHashAndReset());
    }

    /// <summary>Reads the status line and headers; returns the Content-Length and where the body's first bytes lie in <paramref name="buffer"/>.</summary>
    private static async Task<(long Length, int BodyStart, int BodyEnd)> ReadHeadAsync(Socket socket, byte[] buffer)
    {
        var filled = 0;
        while (true)
        {
            var read = await ReceiveOrZeroAsync(socket, buffer.AsMemory(filled, 4096));
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

    /// <summary>A receive; 0 when the server reset the connection (a cut is a reset or an end, both fail the test the same way).</summary>
    private static async Task<int> ReceiveOrZeroAsync(Socket socket, Memory<byte> into)
    {
        try
        {
            return await socket.ReceiveAsync(into, SocketFlags.None);
        }
        catch (SocketException)
        {
            return 0;
        }
    }
}

public sealed class SlowClientDownloadSendFileTests(FileSystemFilesServer server) : SlowClientDownloadTests(server), IClassFixture<FileSystemFilesServer>;

public sealed class SlowClientDownloadCopyingTests(CopyingFilesServer server) : SlowClientDownloadTests(server), IClassFixture<CopyingFilesServer>;
