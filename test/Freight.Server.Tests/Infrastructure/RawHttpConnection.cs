using System.Globalization;
using System.Net.Security;
using System.Net.Sockets;
using System.Text;

namespace Freight.Server.Tests.Infrastructure;

/// <summary>A response read off a raw socket.</summary>
internal sealed record RawHttpResponse(int StatusCode, IReadOnlyDictionary<string, string> Headers, byte[] Body)
{
    public string? Header(string name) => Headers.TryGetValue(name, out var value) ? value : null;

    public string BodyText => Encoding.UTF8.GetString(Body);
}

/// <summary>
/// HTTP/1.1 over a plain TCP socket (or TLS over it, <see cref="OpenTlsAsync"/>), for what HttpClient will not
/// send: truncated or aborted bodies, bodies the server refuses half-way, malformed framing. Reads one response
/// (Content-Length, chunked, or to EOF).
/// </summary>
internal sealed class RawHttpConnection : IAsyncDisposable
{
    // Guards against a hang if the server never answers; no test asserts on time.
    private static readonly TimeSpan s_readLimit = TimeSpan.FromSeconds(60);

    private readonly Socket _socket;
    private readonly SslStream? _tls;
    private readonly byte[] _readBuffer = new byte[16 * 1024];
    private int _readStart;
    private int _readEnd;

    private RawHttpConnection(Socket socket, SslStream? tls)
    {
        _socket = socket;
        _tls = tls;
    }

    public static async Task<RawHttpConnection> OpenAsync(Uri address)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(address.Host, address.Port);
        return new RawHttpConnection(socket, null);
    }

    /// <summary>From the local address <paramref name="from"/> (127.0.0.2, say: every 127.x address is this machine's), so a server or proxy sees another client.</summary>
    public static async Task<RawHttpConnection> OpenAsync(Uri address, System.Net.IPAddress from)
    {
        var socket = new Socket(from.AddressFamily, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        socket.Bind(new System.Net.IPEndPoint(from, 0));
        await socket.ConnectAsync(address.Host, address.Port);
        return new RawHttpConnection(socket, null);
    }

    /// <summary>HTTP/1.1 over TLS (ALPN http/1.1) to an https:// address, trusting only the certificate whose SHA-256 is <paramref name="fingerprint"/>.</summary>
    public static async Task<RawHttpConnection> OpenTlsAsync(Uri address, string fingerprint)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(address.Host, address.Port);
        var tls = new SslStream(new NetworkStream(socket, ownsSocket: false));
        await tls.AuthenticateAsClientAsync(new SslClientAuthenticationOptions
        {
            TargetHost = address.Host,
            ApplicationProtocols = [SslApplicationProtocol.Http11],
            RemoteCertificateValidationCallback = (_, certificate, _, _) =>
                certificate is not null && Convert.ToHexStringLower(certificate.GetCertHash(System.Security.Cryptography.HashAlgorithmName.SHA256)) == fingerprint,
        });
        return new RawHttpConnection(socket, tls);
    }

    /// <summary>The request line and headers for <paramref name="pathAndQuery"/>, ending with the empty line.</summary>
    public static byte[] Head(string method, Uri address, string pathAndQuery, params string[] headers)
    {
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture, $"{method} {pathAndQuery} HTTP/1.1\r\nHost: {address.Authority}\r\n");
        foreach (var header in headers)
        {
            text.Append(header).Append("\r\n");
        }

        return Encoding.ASCII.GetBytes(text.Append("\r\n").ToString());
    }

    /// <summary>Frames <paramref name="data"/> as HTTP/1.1 chunks of at most <paramref name="chunkSize"/> bytes (RFC 9112 §7.1), without the last chunk.</summary>
    public static byte[] Chunked(ReadOnlySpan<byte> data, int chunkSize)
    {
        using var framed = new MemoryStream();
        for (var offset = 0; offset < data.Length; offset += chunkSize)
        {
            var chunk = data.Slice(offset, Math.Min(chunkSize, data.Length - offset));
            framed.Write(Encoding.ASCII.GetBytes(chunk.Length.ToString("x", CultureInfo.InvariantCulture) + "\r\n"));
            framed.Write(chunk);
            framed.Write("\r\n"u8);
        }

        return framed.ToArray();
    }

    /// <summary>The last chunk and the end of an empty trailer section.</summary>
    public static ReadOnlySpan<byte> LastChunk => "0\r\n\r\n"u8;

    public async Task SendAsync(ReadOnlyMemory<byte> data)
    {
        if (_tls is not null)
        {
            await _tls.WriteAsync(data);
            await _tls.FlushAsync();
            return;
        }

        while (!data.IsEmpty)
        {
            var sent = await _socket.SendAsync(data, SocketFlags.None);
            data = data[sent..];
        }
    }

    /// <summary>
    /// Sends <paramref name="data"/> in the background and swallows the errors of a server that stops
    /// reading and closes: the test is about the response, which <see cref="ReadResponseAsync"/> reads meanwhile.
    /// </summary>
    public async Task SendIgnoringServerCloseAsync(ReadOnlyMemory<byte> data)
    {
        try
        {
            await SendAsync(data);
        }
        catch (SocketException)
        {
        }
        catch (ObjectDisposedException)
        {
        }
        catch (IOException) when (_tls is not null)
        {
            // SslStream wraps the socket's error.
        }
    }

    /// <summary>
    /// Sends <paramref name="count"/> zero bytes without reading anything, as a client (or a proxy) that writes a whole
    /// body before it looks at the answer; returns how many the connection took before it failed (the server reset or
    /// closed it), <paramref name="count"/> when all were sent.
    /// </summary>
    public async Task<long> SendZerosAsync(long count)
    {
        var zeros = new byte[1024 * 1024];
        long sent = 0;
        try
        {
            while (sent < count)
            {
                sent += await _socket.SendAsync(zeros.AsMemory(0, (int)Math.Min(zeros.Length, count - sent)), SocketFlags.None);
            }
        }
        catch (SocketException)
        {
        }
        catch (ObjectDisposedException)
        {
            // Closed by the test once it read the answer, as a client that stops sending then.
        }

        return sent;
    }

    /// <summary>
    /// <see cref="SendZerosAsync"/> for a chunked body (RFC 9112 §7.1): <paramref name="head"/>, then <paramref name="count"/>
    /// zero bytes, in chunks of 1 MiB and the last chunk, without reading anything; returns how many body bytes (data, not
    /// framing) the connection took before it failed, <paramref name="head"/>'s and <paramref name="count"/>'s sum when
    /// all were sent with the last chunk.
    /// </summary>
    public async Task<long> SendChunkedZerosAsync(ReadOnlyMemory<byte> head, long count)
    {
        const int ChunkBytes = 1024 * 1024;
        var framed = new byte[ChunkBytes + 16];
        long sent = 0;
        try
        {
            if (!head.IsEmpty)
            {
                await SendAsync(Chunked(head.Span, head.Length));
                sent += head.Length;
            }

            while (sent - head.Length < count)
            {
                var size = (int)Math.Min(ChunkBytes, count - (sent - head.Length));
                var prefix = Encoding.ASCII.GetBytes(size.ToString("x", CultureInfo.InvariantCulture) + "\r\n");
                prefix.CopyTo(framed, 0);
                Array.Clear(framed, prefix.Length, size);
                "\r\n"u8.CopyTo(framed.AsSpan(prefix.Length + size));
                await SendAsync(framed.AsMemory(0, prefix.Length + size + 2));
                sent += size;
            }

            await SendAsync(LastChunk.ToArray());
        }
        catch (SocketException)
        {
        }
        catch (ObjectDisposedException)
        {
            // Closed by the test once it read the answer, as a client that stops sending then.
        }

        return sent;
    }

    /// <summary>Closes abruptly: SO_LINGER 0 makes the close send a TCP RST instead of a FIN.</summary>
    public void Reset()
    {
        _socket.LingerState = new LingerOption(true, 0);
        _socket.Close();
    }

    /// <summary>Closes normally (FIN), without finishing the request.</summary>
    public void Close() => _socket.Close();

    public ValueTask DisposeAsync()
    {
        _tls?.Dispose();
        _socket.Dispose();
        return ValueTask.CompletedTask;
    }

    /// <summary>Reads one response: status line, headers, and the body as framed by the headers.</summary>
    public async Task<RawHttpResponse> ReadResponseAsync()
    {
        using var limit = new CancellationTokenSource(s_readLimit);
        var statusLine = await ReadLineAsync(limit.Token) ?? throw new IOException("The server closed the connection before answering.");
        var status = int.Parse(statusLine.Split(' ')[1], CultureInfo.InvariantCulture);
        var headers = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        string? line;
        while (!string.IsNullOrEmpty(line = await ReadLineAsync(limit.Token)))
        {
            var colon = line.IndexOf(':', StringComparison.Ordinal);
            headers[line[..colon].Trim()] = line[(colon + 1)..].Trim();
        }

        using var body = new MemoryStream();
        if (headers.TryGetValue("Transfer-Encoding", out var coding) && coding.Contains("chunked", StringComparison.OrdinalIgnoreCase))
        {
            int size;
            while ((size = int.Parse(await ReadLineAsync(limit.Token) ?? "0", NumberStyles.HexNumber, CultureInfo.InvariantCulture)) > 0)
            {
                await ReadExactlyAsync(body, size, limit.Token);
                await ReadLineAsync(limit.Token);
            }

            while (!string.IsNullOrEmpty(await ReadLineAsync(limit.Token)))
            {
                // Trailer fields: none expected, skipped.
            }
        }
        else if (headers.TryGetValue("Content-Length", out var length))
        {
            await ReadExactlyAsync(body, int.Parse(length, CultureInfo.InvariantCulture), limit.Token);
        }
        else
        {
            while (await FillAsync(limit.Token))
            {
                body.Write(_readBuffer, _readStart, _readEnd - _readStart);
                _readStart = _readEnd;
            }
        }

        return new RawHttpResponse(status, headers, body.ToArray());
    }

    /// <summary>Whatever the server sends after the response read so far, until it closes (or resets): empty when it answered once and closed.</summary>
    public async Task<byte[]> ReadUntilClosedAsync()
    {
        using var limit = new CancellationTokenSource(s_readLimit);
        using var rest = new MemoryStream();
        rest.Write(_readBuffer, _readStart, _readEnd - _readStart);
        try
        {
            while (await FillAsync(limit.Token))
            {
                rest.Write(_readBuffer, _readStart, _readEnd - _readStart);
            }
        }
        catch (Exception closed) when (closed is SocketException or IOException)
        {
            // A reset ends the connection as a close does.
        }

        _readStart = _readEnd;
        return rest.ToArray();
    }

    /// <summary>
    /// Reads to the end of the connection once a response is read: true when the server closed it (FIN) with nothing
    /// more sent, false when it reset it (RST), which loses whatever the client had not read yet.
    /// </summary>
    public async Task<bool> EndsWithCloseAsync()
    {
        using var limit = new CancellationTokenSource(s_readLimit);
        var extra = _readEnd - _readStart;
        try
        {
            while (await FillAsync(limit.Token))
            {
                extra += _readEnd;
            }
        }
        catch (SocketException reset) when (reset.SocketErrorCode == SocketError.ConnectionReset)
        {
            return false;
        }

        _readStart = _readEnd;
        return extra == 0;
    }

    /// <summary>Reads and drops at least <paramref name="count"/> bytes of whatever arrives (less if the server closes first); returns how many.</summary>
    public async Task<long> ReadSomeAsync(long count)
    {
        using var limit = new CancellationTokenSource(s_readLimit);
        long read = _readEnd - _readStart;
        _readStart = _readEnd;
        while (read < count && await FillAsync(limit.Token))
        {
            read += _readEnd - _readStart;
            _readStart = _readEnd;
        }

        return read;
    }

    private async Task<string?> ReadLineAsync(CancellationToken cancellationToken)
    {
        var line = new StringBuilder();
        while (true)
        {
            if (_readStart == _readEnd && !await FillAsync(cancellationToken))
            {
                return line.Length == 0 ? null : line.ToString();
            }

            var b = (char)_readBuffer[_readStart++];
            if (b == '\n')
            {
                return line.ToString().TrimEnd('\r');
            }

            line.Append(b);
        }
    }

    private async Task ReadExactlyAsync(MemoryStream destination, int count, CancellationToken cancellationToken)
    {
        while (count > 0)
        {
            if (_readStart == _readEnd && !await FillAsync(cancellationToken))
            {
                throw new IOException("The server closed the connection inside a response body.");
            }

            var take = Math.Min(count, _readEnd - _readStart);
            destination.Write(_readBuffer, _readStart, take);
            _readStart += take;
            count -= take;
        }
    }

    private async Task<bool> FillAsync(CancellationToken cancellationToken)
    {
        _readStart = 0;
        _readEnd = _tls is null
            ? await _socket.ReceiveAsync(_readBuffer, SocketFlags.None, cancellationToken)
            : await _tls.ReadAsync(_readBuffer, cancellationToken);
        return _readEnd > 0;
    }
}
