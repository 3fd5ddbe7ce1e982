using System.Diagnostics;
using System.Net.Sockets;
using System.Text;
using Freight.Bench.Load;

namespace Freight.Bench.Suites.Files;

/// <summary>
/// A PUT whose body leaves a file by sendfile(2) (<see cref="Socket.SendFileAsync(string?, ReadOnlyMemory{byte}, ReadOnlyMemory{byte}, TransmitFileOptions, CancellationToken)"/>),
/// on a connection of its own. The client copies nothing, so its bytes are always waiting at the server, and what a
/// PUT costs the server then depends on how much each of its receives takes: under such a client a 1 GiB PUT cost
/// Freight ~3× nginx's CPU while the suite's HttpClient, which copies from memory on one of the cores, showed ~1.3×
/// (docs/results/2026-11-28-splice-receive.md). Both are real clients; the suite measures both.
/// </summary>
internal static class SendFilePut
{
    /// <summary>The most response bytes read: an answer to a PUT is a head and a small body.</summary>
    private const int MaxResponseBytes = 64 * 1024;

    /// <summary>The status code, the ETag header (null when absent) and the seconds from the first byte sent to the answer's end.</summary>
    public sealed record Answer(int StatusCode, string? ETag, double Seconds);

    /// <summary>
    /// PUTs the <paramref name="length"/> bytes of the file at <paramref name="path"/> to <paramref name="uri"/> (a
    /// loopback address) with Content-Length and <c>Connection: close</c>, and reads the answer to its end.
    /// </summary>
    public static async Task<Answer> PutAsync(Uri uri, string path, long length, CancellationToken cancellationToken)
    {
        using var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(uri.Host, uri.Port, cancellationToken);
        var head = Encoding.ASCII.GetBytes(
            $"PUT {uri.PathAndQuery} HTTP/1.1\r\nHost: {uri.Authority}\r\nContent-Type: application/octet-stream\r\n" +
            $"Content-Length: {length}\r\nConnection: close\r\n\r\n");

        var clock = Stopwatch.StartNew();
        await socket.SendFileAsync(path, head, ReadOnlyMemory<byte>.Empty, TransmitFileOptions.UseDefaultWorkerThread, cancellationToken);
        var response = await ReadToEndAsync(socket, cancellationToken);
        var seconds = clock.Elapsed.TotalSeconds;
        return Parse(response, seconds, uri);
    }

    /// <summary>Reads until the server closes the connection (it was asked to), at most <see cref="MaxResponseBytes"/>.</summary>
    private static async Task<byte[]> ReadToEndAsync(Socket socket, CancellationToken cancellationToken)
    {
        var buffer = new byte[MaxResponseBytes];
        var filled = 0;
        int read;
        while (filled < buffer.Length && (read = await socket.ReceiveAsync(buffer.AsMemory(filled), SocketFlags.None, cancellationToken)) > 0)
        {
            filled += read;
        }

        return buffer[..filled];
    }

    internal static Answer Parse(ReadOnlySpan<byte> response, double seconds, Uri uri)
    {
        var headEnd = response.IndexOf("\r\n\r\n"u8);
        if (headEnd < 0)
        {
            throw new VerificationException($"PUT {uri} (sendfile client): no complete answer ({response.Length} bytes before the connection closed).");
        }

        var lines = Encoding.ASCII.GetString(response[..headEnd]).Split("\r\n");
        var status = lines[0].Split(' ');
        if (status.Length < 2 || !status[0].StartsWith("HTTP/1.", StringComparison.Ordinal) || !int.TryParse(status[1], out var code))
        {
            throw new VerificationException($"PUT {uri} (sendfile client): the answer's status line is '{lines[0]}'.");
        }

        string? etag = null;
        foreach (var line in lines.AsSpan(1))
        {
            var colon = line.IndexOf(':', StringComparison.Ordinal);
            if (colon > 0 && line.AsSpan(0, colon).Trim().Equals("ETag", StringComparison.OrdinalIgnoreCase))
            {
                etag = line[(colon + 1)..].Trim();
            }
        }

        return new Answer(code, etag, seconds);
    }
}
