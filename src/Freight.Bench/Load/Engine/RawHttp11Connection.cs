using System.Buffers;
using System.Buffers.Text;
using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Text;
using Freight.Bench.Results;

namespace Freight.Bench.Load.Engine;

/// <summary>
/// One HTTP/1.1 keep-alive connection that sends a pre-built request (a GET, or a file's bytes in 64 KiB pieces:
/// <see cref="RawHttp11Request"/>) and reads the response (RFC 9112) over a
/// reused receive buffer: status code, the framing headers, then the body by Content-Length, chunked
/// coding or (neither) until the server closes. Bytes after the response (pipelined data) stay in the
/// buffer for the next one. With a <see cref="ResponseExpectation"/>, body bytes are compared with the
/// expected ones as they are consumed, straight from the receive buffer. The socket is opened on first
/// use, closed on any failure, on <c>Connection: close</c> and at <see cref="Dispose"/>, and reopened by
/// the next request.
/// Not thread-safe: one request at a time.
/// </summary>
internal sealed class RawHttp11Connection : IDisposable
{
    /// <summary>
    /// Receive buffer: 64 KiB holds a 16 KiB file's response (head included) in one read and takes a 128 KiB
    /// one in about two, where 16 KiB took two and nine; 500 connections hold 32 MiB.
    /// </summary>
    private const int InitialBufferBytes = 64 * 1024;

    /// <summary>A response head longer than this is malformed; 64 KiB is HttpClient's default MaxResponseHeadersLength.</summary>
    private const int MaxHeadBytes = 64 * 1024;

    /// <summary>
    /// Receive buffer once a body longer than this arrives (large downloads): fewer, larger recv()s, as curl's
    /// 16–512 KiB. Measured (strace -c, a 1 GiB GET from nginx): 16,549 recv()s and 8,766 epoll_wait()s with the
    /// 64 KiB buffer, 5,113 and 186 with this one (docs/results/2026-11-25-load-idle.md). Kept for the connection's
    /// life; 500 such connections hold 128 MiB.
    /// </summary>
    private const int LargeBodyBufferBytes = 256 * 1024;

    /// <summary>
    /// A file body's piece: 64 KiB, curl's upload write size. 1 GiB PUTs to nginx by a test client on this machine
    /// (2026-11-27, two rounds): 64 KiB writes 1,101 and 967 MiB/s at 0.93 and 1.01 s of nginx CPU; 1 MiB writes 803
    /// and 1,018 MiB/s at 1.22 and 0.99 s; sendfile 791 and 815 MiB/s at 1.30 and 1.26 s.
    /// </summary>
    private const int UploadPieceBytes = 64 * 1024;

    private readonly EndPoint _endPoint;
    private readonly RawHttp11Request _request;
    private readonly ResponseExpectation? _expectation;
    private byte[] _buffer = ArrayPool<byte>.Shared.Rent(InitialBufferBytes);
    private Socket? _socket;

    // Unread received bytes are _buffer[_start.._end).
    private int _start;
    private int _end;

    // Bytes received since the current request was sent: none means a reused connection may be stale.
    private long _received;

    // Body bytes of the current request's response consumed so far, and its Content-Length (-1: no head yet, or none).
    private long _bodyReceived;
    private long _bodyDeclared = -1;

    // The current response body's comparison with _expectation (default: none).
    private BodyComparison _comparison;

    // The current response body's hashes (an expected SHA-256, the server's digest fields); null when none are needed.
    private ResponseDigests? _digests;

    public RawHttp11Connection(EndPoint endPoint, RawHttp11Request request, ResponseExpectation? expectation = null)
    {
        _endPoint = endPoint;
        _request = request;
        _expectation = expectation;
    }

    /// <summary>
    /// Body bytes of the last request's response received so far: for a request cut at the run's end, what it had
    /// received (<see cref="LoadCounters.AddCutBody"/>).
    /// </summary>
    public long BodyBytesReceived => _bodyReceived;

    /// <summary>The last request's response's Content-Length; -1 before its head, or when it declared none.</summary>
    public long BodyBytesDeclared => _bodyDeclared;

    /// <summary>Where <paramref name="target"/>'s connections go: its IP literal, or its name resolved at connect time.</summary>
    public static EndPoint EndPointOf(Uri target) =>
        IPAddress.TryParse(target.DnsSafeHost, out var address)
            ? new IPEndPoint(address, target.Port)
            : new DnsEndPoint(target.DnsSafeHost, target.Port);

    /// <summary>
    /// Sends the request and reads the whole response; returns its status code, body length (chunked: the
    /// decoded data) and how the body differed from the expectation (null when it matched or was not compared). A reused
    /// connection that the server closed while idle (no byte of a response came back) is reopened and an
    /// idempotent request sent again, once. Throws <see cref="SocketException"/>
    /// (refused, reset), <see cref="HttpRequestException"/> (closed before any response or part-way through its head:
    /// <see cref="HttpRequestError.ResponseEnded"/>),
    /// <see cref="HttpIOException"/> (closed mid-response: <see cref="HttpRequestError.ResponseEnded"/>), <see cref="InvalidDataException"/>
    /// (malformed response) or <see cref="OperationCanceledException"/>; the connection is closed then.
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<(int StatusCode, long BodyBytes, FailureReason? Mismatch)> SendAsync(CancellationToken token)
    {
        for (var attempt = 0; ; attempt++)
        {
            var retryable = attempt == 0 && _socket is not null && _request.Idempotent;
            _received = 0;
            _bodyReceived = 0;
            _bodyDeclared = -1;
            try
            {
                if (_socket is null)
                {
                    await ConnectAsync(token);
                }

                if (_request.BodyFile is null)
                {
                    await _socket!.SendAsync(_request.Head, SocketFlags.None, token);
                }
                else
                {
                    await SendFileAsync(token);
                }

                var response = await ReadResponseAsync(token);
                if (response.StatusCode >= 0)
                {
                    return response;
                }

                // RFC 9112 §9.3.1: a client may retry a request (a GET is idempotent) on a connection closed before any response.
                Close();
                if (!retryable)
                {
                    // As HttpClient says it (its SendAsync throws this before any response): one event, one code.
                    throw new HttpRequestException(HttpRequestError.ResponseEnded, "The server closed the connection before sending a response.");
                }
            }
            catch (SocketException) when (retryable && _received == 0 && !token.IsCancellationRequested)
            {
                Close();
            }
            catch
            {
                Close();
                throw;
            }
        }
    }

    public void Dispose()
    {
        Close();
        var buffer = Interlocked.Exchange(ref _buffer, []);
        if (buffer.Length > 0)
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    private async ValueTask ConnectAsync(CancellationToken token)
    {
        // Dual-mode: connects to IPv4 and IPv6 endpoints alike.
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        try
        {
            await socket.ConnectAsync(_endPoint, token);
        }
        catch
        {
            socket.Dispose();
            throw;
        }

        _socket = socket;
        _start = _end = 0;
    }

    /// <summary>
    /// The head, then the file in <see cref="UploadPieceBytes"/> pieces: positional reads into one pooled buffer,
    /// each piece sent whole. Not sendfile(2), which it was until 2026-11-27: on loopback the server's receive then
    /// copies every byte out of the client's page-cache pages, which no core has touched lately, and nginx spent
    /// ~1.3 s of CPU a GiB receiving a WebDAV PUT sent that way against ~1.0 from 64 KiB writes (curl's way), and took
    /// it at ~800 against ~1,000 MiB/s: the client's zero copy was paid twice over by the server it measures
    /// (docs/results/2026-11-27-load-vs-peers-put.md). A file whose length changed since the run declared it fails
    /// the request. A server that answers and closes before the body has gone gets its answer read (<see cref="EarlyResponse"/>).
    /// </summary>
    private async ValueTask SendFileAsync(CancellationToken token)
    {
        var path = _request.BodyFile!;
        using var file = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.Read, FileOptions.SequentialScan);
        var length = RandomAccess.GetLength(file);
        if (length != _request.BodyLength)
        {
            throw new IOException($"{path} changed during the run: {length} bytes, {_request.BodyLength} declared.");
        }

        var piece = ArrayPool<byte>.Shared.Rent(UploadPieceBytes);
        try
        {
            await _socket!.SendAsync(_request.Head, SocketFlags.None, token);
            long offset = 0;
            while (offset < length)
            {
                var read = RandomAccess.Read(file, piece.AsSpan(0, (int)Math.Min(UploadPieceBytes, length - offset)), offset);
                if (read == 0)
                {
                    throw new IOException($"{path} changed during the run: it ended at {offset} bytes, {_request.BodyLength} declared.");
                }

                // On Unix a stream socket's send completes when every byte is queued (or fails).
                await _socket.SendAsync(piece.AsMemory(0, read), SocketFlags.None, token);
                offset += read;
            }
        }
        catch (SocketException failed) when (failed.SocketErrorCode is SocketError.Shutdown or SocketError.ConnectionReset && !token.IsCancellationRequested)
        {
            // Closed while the body went: an answer sent first (Kestrel's 413 for a body over its limit) is the response.
            throw await EarlyResponse.ExplainAsync(_socket!, failed);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(piece);
        }
    }

    /// <summary>Reads one response; status −1 when the server closed the connection before sending a byte.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<(int StatusCode, long BodyBytes, FailureReason? Mismatch)> ReadResponseAsync(CancellationToken token)
    {
        while (true)
        {
            int headLength;
            while ((headLength = _buffer.AsSpan(_start, _end - _start).IndexOf("\r\n\r\n"u8)) < 0)
            {
                if (!await FillAsync(growable: true, token))
                {
                    if (_received == 0 && _start == _end)
                    {
                        return (-1, 0, null);
                    }

                    // Half a head is no response, as HttpClient has it (its SendAsync throws this too): counted as the
                    // close before answering, which it had been apart from, as an error. Not retried: bytes came.
                    throw new HttpRequestException(HttpRequestError.ResponseEnded, "The server closed the connection in the middle of a response head.");
                }
            }

            var head = ParseHead(_buffer.AsSpan(_start, headLength), _expectation?.ChecksDigestFields == true);
            _start += headLength + 4;

            // RFC 9110 §15.2: interim 1xx responses precede the final one (101 would switch protocols; GET never asks).
            if (head.StatusCode < 200)
            {
                continue;
            }

            long bodyBytes;
            _comparison = BodyComparison.Start(_expectation, head.StatusCode);
            _digests?.Dispose();
            _digests = ResponseDigests.Start(_expectation, head.StatusCode, head.ContentDigest, head.ReprDigest, head.ContentEncoded);

            // RFC 9112 §6.3: 204 and 304 have no body; chunked wins over Content-Length; neither means "until close".
            if (head.StatusCode is 204 or 304)
            {
                bodyBytes = 0;
            }
            else if (head.Chunked)
            {
                bodyBytes = await ReadChunkedAsync(token);
            }
            else if (head.ContentLength >= 0)
            {
                _bodyDeclared = head.ContentLength;
                _comparison.ExpectLength(head.ContentLength);
                await SkipAsync(head.ContentLength, token);
                bodyBytes = head.ContentLength;
            }
            else
            {
                bodyBytes = await ReadToEndAsync(token);
                head.KeepAlive = false;
            }

            if (!head.KeepAlive)
            {
                Close();
            }

            var mismatch = _comparison.Mismatch ?? _digests?.Mismatch();
            _digests?.Dispose();
            _digests = null;
            return (head.StatusCode, bodyBytes, mismatch);
        }
    }

    /// <summary>RFC 9112 §7.1: chunk-size [extensions] CRLF data CRLF … 0 CRLF, trailer lines, CRLF. Returns the data bytes.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<long> ReadChunkedAsync(CancellationToken token)
    {
        long total = 0;
        while (true)
        {
            var lineLength = await ReadLineAsync(token);
            var size = ParseChunkSize(_buffer.AsSpan(_start, lineLength));
            _start += lineLength + 2;
            if (size == 0)
            {
                break;
            }

            await SkipAsync(size, token);
            total += size;
            while (_end - _start < 2)
            {
                await FillOrThrowAsync(token);
            }

            if (_buffer[_start] != (byte)'\r' || _buffer[_start + 1] != (byte)'\n')
            {
                throw new InvalidDataException("Chunk data is not followed by CRLF.");
            }

            _start += 2;
        }

        // Trailer fields are skipped up to the empty line that ends the message.
        int trailerLength;
        do
        {
            trailerLength = await ReadLineAsync(token);
            _start += trailerLength + 2;
        }
        while (trailerLength > 0);

        return total;
    }

    /// <summary>Waits until a CRLF-terminated line starts at <see cref="_start"/>; returns its length without the CRLF.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<int> ReadLineAsync(CancellationToken token)
    {
        int length;
        while ((length = _buffer.AsSpan(_start, _end - _start).IndexOf("\r\n"u8)) < 0)
        {
            await FillOrThrowAsync(token);
        }

        return length;
    }

    /// <summary>Consumes (and compares) <paramref name="remaining"/> body bytes, buffered first, then as they arrive.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask SkipAsync(long remaining, CancellationToken token)
    {
        EnsureBodyBuffer(remaining);
        while (true)
        {
            var take = (int)Math.Min(_end - _start, remaining);
            Consume(_buffer.AsSpan(_start, take));
            _start += take;
            remaining -= take;
            if (remaining == 0)
            {
                return;
            }

            await FillOrThrowAsync(token);
        }
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<long> ReadToEndAsync(CancellationToken token)
    {
        EnsureBodyBuffer(long.MaxValue);
        long total = _end - _start;
        Consume(_buffer.AsSpan(_start, _end - _start));
        _start = _end;
        while (await FillAsync(growable: false, token))
        {
            total += _end - _start;
            Consume(_buffer.AsSpan(_start, _end - _start));
            _start = _end;
        }

        return total;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask FillOrThrowAsync(CancellationToken token)
    {
        if (!await FillAsync(growable: true, token))
        {
            throw new HttpIOException(HttpRequestError.ResponseEnded, "The server closed the connection in the middle of a response.");
        }
    }

    /// <summary>
    /// Receives more bytes after the unread ones: makes room by rewinding (nothing unread), compacting, or,
    /// when unread bytes fill the buffer (a long head or line), doubling it up to <see cref="MaxHeadBytes"/>.
    /// False at end of stream.
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<bool> FillAsync(bool growable, CancellationToken token)
    {
        if (_start == _end)
        {
            _start = _end = 0;
        }
        else if (_end == _buffer.Length)
        {
            if (_start > 0)
            {
                Buffer.BlockCopy(_buffer, _start, _buffer, 0, _end - _start);
                _end -= _start;
                _start = 0;
            }
            else if (growable && _buffer.Length < MaxHeadBytes)
            {
                var larger = ArrayPool<byte>.Shared.Rent(Math.Min(_buffer.Length * 2, MaxHeadBytes));
                Buffer.BlockCopy(_buffer, 0, larger, 0, _end);
                ArrayPool<byte>.Shared.Return(_buffer);
                _buffer = larger;
            }
            else
            {
                throw new InvalidDataException($"A response head or chunk line is longer than {MaxHeadBytes} bytes.");
            }
        }

        var read = await _socket!.ReceiveAsync(_buffer.AsMemory(_end), SocketFlags.None, token);
        _end += read;
        _received += read;
        return read > 0;
    }

    /// <summary>
    /// Before reading a body of <paramref name="remaining"/> bytes: when it is longer than <see cref="LargeBodyBufferBytes"/>,
    /// swaps that size of buffer in (the unread bytes moved to its start), so runs of small files keep the small buffer.
    /// </summary>
    private void EnsureBodyBuffer(long remaining)
    {
        if (_buffer.Length >= LargeBodyBufferBytes || remaining <= LargeBodyBufferBytes)
        {
            return;
        }

        var larger = ArrayPool<byte>.Shared.Rent(LargeBodyBufferBytes);
        Buffer.BlockCopy(_buffer, _start, larger, 0, _end - _start);
        ArrayPool<byte>.Shared.Return(_buffer);
        _buffer = larger;
        _end -= _start;
        _start = 0;
    }

    private void Consume(ReadOnlySpan<byte> body)
    {
        _bodyReceived += body.Length;
        _comparison.Add(body);
        _digests?.Add(body);
    }

    private void Close()
    {
        _digests?.Dispose();
        _digests = null;
        _socket?.Dispose();
        _socket = null;
        _start = _end = 0;
    }

    /// <summary>RFC 9112 §4 status line, then §5 fields: only the ones that frame the message or end the connection.</summary>
    private static ResponseHead ParseHead(ReadOnlySpan<byte> head, bool digestFields)
    {
        var lineEnd = head.IndexOf("\r\n"u8);
        var statusLine = lineEnd < 0 ? head : head[..lineEnd];

        // HTTP-version SP 3DIGIT SP [reason-phrase]
        if (statusLine.Length < 12 || !statusLine.StartsWith("HTTP/1."u8) || statusLine[8] != (byte)' '
            || (statusLine.Length > 12 && statusLine[12] != (byte)' ')
            || !Utf8Parser.TryParse(statusLine.Slice(9, 3), out int statusCode, out var consumed) || consumed != 3 || statusCode < 100)
        {
            throw new InvalidDataException("Malformed status line.");
        }

        // HTTP/1.1 persists by default, HTTP/1.0 only when asked (RFC 9112 §9.3).
        var result = new ResponseHead { StatusCode = statusCode, ContentLength = -1, KeepAlive = statusLine[7] == (byte)'1' };
        var fields = lineEnd < 0 ? [] : head[(lineEnd + 2)..];
        while (!fields.IsEmpty)
        {
            var end = fields.IndexOf("\r\n"u8);
            var line = end < 0 ? fields : fields[..end];
            fields = end < 0 ? [] : fields[(end + 2)..];

            var colon = line.IndexOf((byte)':');
            if (colon <= 0)
            {
                throw new InvalidDataException("Malformed header field.");
            }

            var name = line[..colon];
            var value = line[(colon + 1)..].Trim(" \t"u8);
            if (Ascii.EqualsIgnoreCase(name, "Content-Length"u8))
            {
                if (!Utf8Parser.TryParse(value, out long length, out var used) || used != value.Length || length < 0)
                {
                    throw new InvalidDataException("Malformed Content-Length.");
                }

                result.ContentLength = length;
            }
            else if (Ascii.EqualsIgnoreCase(name, "Transfer-Encoding"u8))
            {
                // The final coding decides the framing (RFC 9112 §6.3 item 4).
                var last = value[(value.LastIndexOf((byte)',') + 1)..].Trim(" \t"u8);
                result.Chunked = Ascii.EqualsIgnoreCase(last, "chunked"u8);
            }
            else if (Ascii.EqualsIgnoreCase(name, "Connection"u8))
            {
                ApplyConnectionOptions(value, ref result);
            }
            else if (digestFields && Ascii.EqualsIgnoreCase(name, "Content-Digest"u8))
            {
                result.ContentDigest = Encoding.Latin1.GetString(value);
            }
            else if (digestFields && Ascii.EqualsIgnoreCase(name, "Repr-Digest"u8))
            {
                result.ReprDigest = Encoding.Latin1.GetString(value);
            }
            else if (digestFields && Ascii.EqualsIgnoreCase(name, "Content-Encoding"u8))
            {
                result.ContentEncoded = !value.IsEmpty;
            }
        }

        return result;
    }

    private static void ApplyConnectionOptions(ReadOnlySpan<byte> value, ref ResponseHead head)
    {
        while (!value.IsEmpty)
        {
            var comma = value.IndexOf((byte)',');
            var option = (comma < 0 ? value : value[..comma]).Trim(" \t"u8);
            value = comma < 0 ? [] : value[(comma + 1)..];
            if (Ascii.EqualsIgnoreCase(option, "close"u8))
            {
                head.KeepAlive = false;
            }
            else if (Ascii.EqualsIgnoreCase(option, "keep-alive"u8))
            {
                head.KeepAlive = true;
            }
        }
    }

    /// <summary>chunk-size is hex (RFC 9112 §7.1); chunk extensions after it (";name=value", after optional whitespace) are ignored.</summary>
    private static long ParseChunkSize(ReadOnlySpan<byte> line)
    {
        if (!Utf8Parser.TryParse(line, out ulong size, out var consumed, 'x') || consumed == 0 || size > long.MaxValue)
        {
            throw new InvalidDataException("Malformed chunk size.");
        }

        var rest = line[consumed..].TrimStart(" \t"u8);
        if (!rest.IsEmpty && rest[0] != (byte)';')
        {
            throw new InvalidDataException("Malformed chunk size.");
        }

        return (long)size;
    }

    private struct ResponseHead
    {
        public int StatusCode;
        public long ContentLength;
        public bool Chunked;
        public bool KeepAlive;
        public string? ContentDigest;
        public string? ReprDigest;
        public bool ContentEncoded;
    }
}
