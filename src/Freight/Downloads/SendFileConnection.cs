using System.Buffers;
using System.IO.Pipelines;
using System.Net;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Http;
using Microsoft.Win32.SafeHandles;

namespace Freight.Downloads;

/// <summary>
/// One cleartext connection whose output Freight sends itself, so that a response body's bytes can come from
/// sendfile(2). Kestrel's HTTP layer writes to <see cref="Output"/>, a pipe of this connection's; a send loop
/// (<see cref="RunAsync"/>) sends the pipe's bytes on the socket in order and, at the position where a
/// response asked for a file (<see cref="SendFileAsync"/>), the file's bytes with sendfile. Kestrel's own
/// sender is left idle: it is the send loop alone that writes to the socket, so nothing interleaves, and when
/// it reaches a file's position every byte before it has been sent — the wait for a drained output is the
/// order of the loop. Kestrel still writes the status line and headers, and the file's bytes pass through
/// its writer as stand-ins that <see cref="SendFileOutput"/> drops, so its Content-Length check, its
/// write-rate timing and keep-alive see an ordinary response.
/// </summary>
internal sealed class SendFileConnection : IDuplexPipe, ISendFileFeature
{
    /// <summary>
    /// The pipe pauses a writer at 64 KiB unsent and resumes it below 32 KiB: the thresholds of Kestrel's socket
    /// transport (SocketTransportOptions.MaxWriteBufferSize), so the copying paths see the backpressure they saw.
    /// </summary>
    private const int PauseWriterBytes = 64 * 1024;

    private const int ResumeWriterBytes = PauseWriterBytes / 2;

    /// <summary>
    /// When sendfile finds the socket's send buffer full (EAGAIN), this many bytes are read and sent with an
    /// ordinary async send, which waits for the socket to drain without holding a thread; sendfile resumes after
    /// them. One page: the copy is the price of the wait, and a page is the least the kernel queues as one piece.
    /// </summary>
    private const int WaitProbeBytes = 4096;

    // Larger gathers are cut into several sends; a response flush of 1 MiB in 64 KiB blocks is 16.
    private const int MaxSegmentsPerSend = 64;

    /// <summary>
    /// A chunk's stand-ins go to Kestrel in pieces of this size, one flush each, and each flush returns once
    /// sendfile has sent its piece. Kestrel times each flush of a body written through GetMemory/Advance against
    /// its grace alone (5 s by default; Http1OutputProducer counts no bytes for such writes), so one flush per
    /// 1 MiB chunk cut a client reading under ~1 MiB per 5–6 s (SlowClientDownloadTests at 100 KiB/s: cut at 6.7 s,
    /// after 0.69 MB). A flush returns once its piece has been sent and the loop waits for the socket or ends the
    /// chunk (<see cref="FileSend.Progress"/>): for a slow client at once, for a fast one at the chunk's end. While the
    /// socket is full a flush also returns at each check the client passes (<see cref="WhileSocketFullAsync"/>): a full
    /// socket takes more only once a third of its send buffer (autotuned to MiBs) has been read.
    /// </summary>
    private const int FlushPieceBytes = 64 * 1024;

    private readonly ConnectionContext _connection;
    private readonly IDuplexPipe _transport;
    private readonly Socket _socket;
    private readonly Pipe _pipe;
    private readonly SendFileOutput _output;
    private readonly List<ArraySegment<byte>> _gather = new(MaxSegmentsPerSend);
    private readonly Lock _gate = new();
    private FileSend? _pending;
    private FileSend? _sending;
    private bool _stopped;

    // Set by a response from before it flushes its headers until its file has been sent: the bytes the loop sends
    // meanwhile are followed by a file's, and go with MSG_MORE.
    private bool _fileFollows;

    private readonly int _port;
    private long _sent;

    public SendFileConnection(ConnectionContext connection, Socket socket, MemoryPool<byte>? pool)
    {
        _connection = connection;
        _transport = connection.Transport;
        _socket = socket;
        _port = (connection.LocalEndPoint as IPEndPoint)?.Port ?? 0;
        var segmentSize = pool is { MaxBufferSize: > 0 } ? pool.MaxBufferSize : 4096;
        _pipe = new Pipe(new PipeOptions(pool, PipeScheduler.ThreadPool, PipeScheduler.ThreadPool, PauseWriterBytes, ResumeWriterBytes, segmentSize, useSynchronizationContext: false));
        _output = new SendFileOutput(_pipe.Writer, this);
    }

    public PipeReader Input => _transport.Input;

    public PipeWriter Output => _output;

    public async Task SendFileAsync(PipeWriter responseWriter, SafeFileHandle file, long offset, long count, HttpContext? response, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(responseWriter);
        ArgumentNullException.ThrowIfNull(file);
        Volatile.Write(ref _fileFollows, true);
        try
        {
            // The status line, headers and whatever the response wrote before (a part's head) into the pipe: after
            // this flush the response has started and its bytes so far are counted in Written.
            var flush = await responseWriter.FlushAsync(cancellationToken);
            if (flush.IsCompleted || flush.IsCanceled)
            {
                return;
            }

            while (count > 0)
            {
                // One flush per FileSender.MaxChunkSize, as on the copying path: Kestrel gives each flush of a body
                // written through GetMemory/Advance its minimum-data-rate grace (5 s by default) whatever its size,
                // so one flush for a whole 1 GiB file cut a client that took longer than 5 s (observed under load).
                var chunk = Math.Min(count, FileSender.MaxChunkSize);
                var send = new FileSend(file, offset, chunk, _output.Written, response, cancellationToken);
                bool sent;
                try
                {
                    sent = await SendChunkAsync(responseWriter, send, cancellationToken);
                }
                catch (OperationCanceledException) when (chunk == count && send.Done.Task is { IsCompletedSuccessfully: true, Result: true })
                {
                    // The file's last byte had left when the request was aborted: a client that closes once it has it (curl,
                    // a browser) races the flushes still coming back, and Kestrel's flush throws for an aborted request.
                    // Thrown on, a complete download ended as "the client went away", eight exceptions deep.
                    return;
                }

                if (!sent)
                {
                    return;
                }

                offset += chunk;
                count -= chunk;
            }
        }
        finally
        {
            Volatile.Write(ref _fileFollows, false);
        }
    }

    /// <summary>One chunk: its stand-ins through Kestrel's writer in pieces, each flushed and the flush returning once sendfile has sent it. False when the client is gone.</summary>
    private async Task<bool> SendChunkAsync(PipeWriter responseWriter, FileSend send, CancellationToken cancellationToken)
    {
        lock (_gate)
        {
            if (_stopped)
            {
                throw new ConnectionAbortedException("The connection stopped sending before the file's bytes.");
            }

            _pending = send;
        }

        Volatile.Write(ref _sending, send);
        try
        {
            // Stand-ins for the file's bytes through Kestrel's writer: counted against Content-Length, dropped here.
            _output.Discard(send.Count);
            long advanced = 0;
            while (advanced < send.Count)
            {
                var piece = Math.Min(FlushPieceBytes, send.Count - advanced);
                var left = piece;
                while (left > 0)
                {
                    var standIn = responseWriter.GetMemory();
                    var advance = (int)Math.Min(standIn.Length, left);
                    responseWriter.Advance(advance);
                    left -= advance;
                }

                advanced += piece;
                if (_output.DiscardLeft != send.Count - advanced)
                {
                    // The stand-ins did not all reach this connection: a middleware between the response and Kestrel
                    // kept them (they would reach the client as if they were the file), or Kestrel's output has already
                    // ended. Checked before the piece's flush, so no file byte has left.
                    _output.StopDiscarding();
                    if (advanced == piece)
                    {
                        Withdraw(send);
                        throw new InvalidOperationException("The response writer did not pass the file's bytes to the connection; sendfile cannot stand in for them.");
                    }

                    // Kestrel's output ended mid-chunk: the loop finishes the chunk it has started (or has stopped).
                    await send.Done.Task;
                    return false;
                }

                // Kestrel times this flush against its minimum response data rate; SendFileOutput's flush returns
                // once the send loop has sent the file's bytes up to this piece's end.
                send.FlushedUpTo = advanced;
                var flush = await responseWriter.FlushAsync(cancellationToken);
                if (send.Done.Task.IsFaulted)
                {
                    // The server could not send the file: thrown here, before Kestrel hears that the output has ended
                    // (which it would take for the client leaving), so that it is logged as the failure it is.
                    await send.Done.Task;
                }

                // Had Kestrel's output already ended, its flush would not have reached this connection: wake the
                // loop anyway (every byte before the chunk is flushed), so the wait below always ends.
                WakeLoopFor(send);
                if (flush.IsCompleted || flush.IsCanceled)
                {
                    _output.StopDiscarding();
                    await send.Done.Task;
                    return false;
                }
            }

            // The last piece's flush may have been let go before the chunk's end left (a slow client still reading): until
            // it has, flushes with nothing new keep each wait under Kestrel's timer, and the loop's checks of the client
            // (WhileSocketFullAsync) let each go or cut a client that has stopped reading.
            while (!send.Done.Task.IsCompleted)
            {
                var flush = await responseWriter.FlushAsync(cancellationToken);
                if (flush.IsCompleted || flush.IsCanceled)
                {
                    _output.StopDiscarding();
                    break;
                }
            }

            return await send.Done.Task;
        }
        finally
        {
            Volatile.Write(ref _sending, null);
        }
    }

    /// <summary>What <see cref="SendFileOutput.FlushAsync"/> does: flush the pipe, then wait for a pending file's bytes.</summary>
    internal ValueTask<FlushResult> FlushAsync(CancellationToken cancellationToken)
    {
        var flush = _pipe.Writer.FlushAsync(cancellationToken);
        var sending = Volatile.Read(ref _sending);
        return sending is null ? flush : FlushThenSendFileAsync(flush, sending);
    }

    private async ValueTask<FlushResult> FlushThenSendFileAsync(ValueTask<FlushResult> flush, FileSend sending)
    {
        var result = await flush;
        WakeLoopFor(sending);
        await sending.WhenSentAsync(sending.FlushedUpTo);

        // The client left: a completed flush stops Kestrel quietly, as its own transport's does (thrown, the end was
        // logged as an "Unexpected exception in TimingPipeFlusher.FlushAsync"). A failed send is the response's to
        // throw (SendChunkAsync), not this flush's.
        return sending.ClientLeft ? new FlushResult(isCanceled: false, isCompleted: true) : result;
    }

    /// <summary>
    /// Wakes the send loop, if it waits for bytes, to take <paramref name="send"/>: none will come before the file's.
    /// Only while the send is pending: once the loop has taken it, a wake-up sends the loop round for nothing, one
    /// thread-pool hop each, and every 64 KiB piece's flush made two.
    /// </summary>
    private void WakeLoopFor(FileSend send)
    {
        if (ReferenceEquals(Volatile.Read(ref _pending), send))
        {
            _pipe.Reader.CancelPendingRead();
        }
    }

    /// <summary>
    /// The send loop: the pipe's bytes in order, and each pending file at its position. Ends when the HTTP layer
    /// completes the output (or <see cref="CompleteOutput"/>); a failed send aborts the connection.
    /// </summary>
    public async Task RunAsync()
    {
        var reader = _pipe.Reader;
        Exception? error = null;
        FileSend? sending = null;
        try
        {
            while (true)
            {
                var result = await reader.ReadAsync();
                var buffer = result.Buffer;
                if (!buffer.IsEmpty)
                {
                    await SendAsync(buffer, Volatile.Read(ref _fileFollows));
                    _sent += buffer.Length;
                }

                reader.AdvanceTo(buffer.End);
                if (TakeFileAt(_sent) is { } send)
                {
                    sending = send;
                    await SendFileCoreAsync(send);
                    sending = null;
                    Telemetry.FreightTelemetry.SentFile(send.Count, _port);
                    Telemetry.FreightTelemetry.DownloadBytes.Add(send.Count);
                    send.Done.TrySetResult(true);
                    send.Finish();
                }

                if (result.IsCompleted)
                {
                    break;
                }
            }
        }
        catch (Exception failed)
        {
            // The response cannot continue, and a connection with half a body must not carry another. When the client
            // is gone (a reset, an abort, a cancelled request) the connection is aborted before the response hears of
            // it (below), so that Kestrel and the app count the request as aborted, not failed. When the server failed
            // (a file that ended early, a read error) the response throws first and is logged as the failure it is;
            // Kestrel then closes the connection, as it does after any error once a response has started. Aborted
            // first, it was filed as the client's abort at Debug, and the failure went unseen.
            error = failed;
            if (ClientLeft(failed))
            {
                _connection.Abort(new ConnectionAbortedException("The client left mid-response.", failed));
            }
        }
        finally
        {
            FileSend? orphan;
            lock (_gate)
            {
                _stopped = true;
                orphan = _pending;
                _pending = null;
            }

            End(sending, error);
            End(orphan, error);

            // Completed without the error, as Kestrel's socket transport does on a reset: Kestrel's next flush then
            // sees a completed output and stops quietly. With the error, its TimingPipeFlusher logged every client
            // that left mid-response as an "Unexpected exception" (JsonTempFileTests saw it); the abort above is what
            // ends the connection.
            await reader.CompleteAsync();
        }
    }

    /// <summary>
    /// Tells a file send the loop stopped before it ended: unsent (false) when the client left or the connection ended,
    /// so the response stops as it does when Kestrel's own transport finds the client gone (its flush completes, nothing
    /// is thrown or logged); failed when the server could not send the file (it ended early, a read failed), which the
    /// response throws and Kestrel (or the app's error handling) logs once.
    /// </summary>
    private static void End(FileSend? send, Exception? error)
    {
        if (send is null)
        {
            return;
        }

        if (error is null || ClientLeft(error))
        {
            send.Done.TrySetResult(false);
        }
        else
        {
            send.Done.TrySetException(error);
        }

        send.Finish();
    }

    /// <summary>Failures that mean the client is gone or the connection was aborted, not that the file could not be sent.</summary>
    private static bool ClientLeft(Exception error) =>
        error is ConnectionResetException or SocketException or ObjectDisposedException or OperationCanceledException
        || error.InnerException is SocketException;

    /// <summary>Ends the output once the HTTP layer is done with the connection; the send loop then sends what is left and stops.</summary>
    public void CompleteOutput() => _pipe.Writer.Complete();

    private FileSend? TakeFileAt(long position)
    {
        if (Volatile.Read(ref _pending) is null)
        {
            return null;
        }

        lock (_gate)
        {
            if (_pending is not { } send || send.Position != position)
            {
                return null;
            }

            _pending = null;
            return send;
        }
    }

    private void Withdraw(FileSend send)
    {
        lock (_gate)
        {
            if (ReferenceEquals(_pending, send))
            {
                _pending = null;
            }
        }
    }

    /// <summary>The pipe's bytes; with <paramref name="fileFollows"/>, a single block (a response's head) goes with MSG_MORE.</summary>
    private async ValueTask SendAsync(ReadOnlySequence<byte> buffer, bool fileFollows)
    {
        if (buffer.IsSingleSegment)
        {
            var bytes = buffer.First;
            if (fileFollows)
            {
                // What the kernel did not take (all of it if the call failed) goes the ordinary way, which waits for
                // room or reports the error; only the merging into the file's segments is lost.
                var taken = LinuxSendFile.SendMore(_socket.SafeHandle, bytes.Span, out _);
                bytes = taken > 0 ? bytes[(int)taken..] : bytes;
            }

            await SendAllAsync(bytes, CancellationToken.None);
            return;
        }

        // Several blocks in one sendmsg, as Kestrel's sender does; the pool's blocks are arrays.
        _gather.Clear();
        foreach (var block in buffer)
        {
            if (!MemoryMarshal.TryGetArray(block, out var segment))
            {
                await SendGatheredAsync();
                await SendAllAsync(block, CancellationToken.None);
                continue;
            }

            _gather.Add(segment);
            if (_gather.Count == MaxSegmentsPerSend)
            {
                await SendGatheredAsync();
            }
        }

        await SendGatheredAsync();
    }

    private async ValueTask SendGatheredAsync()
    {
        if (_gather.Count == 0)
        {
            return;
        }

        long expected = 0;
        for (var i = 0; i < _gather.Count; i++)
        {
            expected += _gather[i].Count;
        }

        // On Unix a stream socket's gather send completes when every byte is queued (or fails).
        var sent = await _socket.SendAsync(_gather, SocketFlags.None);
        _gather.Clear();
        if (sent != expected)
        {
            throw new IOException($"The socket took {sent} of {expected} bytes.");
        }
    }

    private async ValueTask SendAllAsync(ReadOnlyMemory<byte> bytes, CancellationToken cancellationToken)
    {
        while (!bytes.IsEmpty)
        {
            var sent = await _socket.SendAsync(bytes, SocketFlags.None, cancellationToken);
            bytes = bytes[sent..];
        }
    }

    private async Task SendFileCoreAsync(FileSend send)
    {
        var offset = send.Offset;
        var left = send.Count;
        byte[]? probe = null;
        try
        {
            while (left > 0)
            {
                send.CancellationToken.ThrowIfCancellationRequested();
                var sent = LinuxSendFile.Send(_socket.SafeHandle, send.File, ref offset, left, out var errno);
                if (sent > 0)
                {
                    left -= sent;
                    send.Progress(send.Count - left);
                    continue;
                }

                if (sent == 0)
                {
                    throw new EndOfStreamException($"The file ended {left} bytes before the range did.");
                }

                if (errno == LinuxSendFile.EIntr)
                {
                    continue;
                }

                if (errno is LinuxSendFile.EPipe or LinuxSendFile.EConnReset)
                {
                    throw new ConnectionResetException($"The client left mid-body: {Marshal.GetPInvokeErrorMessage(errno)}.");
                }

                if (errno != LinuxSendFile.EAgain)
                {
                    throw new IOException($"sendfile failed: {Marshal.GetPInvokeErrorMessage(errno)} (errno {errno}).");
                }

                // The send buffer is full. An async send of the next bytes waits for room without a thread; first, a
                // flush waiting for bytes that have left is let go (the loop wakes it only here and at the chunk's end).
                send.WakeWaiter();
                probe ??= ArrayPool<byte>.Shared.Rent(WaitProbeBytes);
                var read = RandomAccess.Read(send.File, probe.AsSpan(0, (int)Math.Min(WaitProbeBytes, left)), offset);
                if (read == 0)
                {
                    throw new EndOfStreamException($"The file ended {left} bytes before the range did.");
                }

                await WhileSocketFullAsync(SendAllAsync(probe.AsMemory(0, read), send.CancellationToken), send);
                offset += read;
                left -= read;
                send.Progress(send.Count - left);
            }
        }
        finally
        {
            if (probe is not null)
            {
                ArrayPool<byte>.Shared.Return(probe);
            }
        }
    }

    /// <summary>
    /// Waits for <paramref name="sending"/>, a send into a full socket, and meanwhile lets the response's waiting flush go
    /// at each check of <see cref="ClientReadWatch"/>'s rule that the client passes, so the rule alone decides when it is
    /// cut: Kestrel times each waiting flush against its grace alone, and a full socket takes more only once a third of
    /// its send buffer (autotuned to MiBs) has been read, so a client at 16 KiB/s was cut after 8 s
    /// (SlowClientDownloadTests). With the rule, the socket needs no low watermark, whose wake-ups cost 1 GiB GETs 1.2×
    /// the CPU; a wait for room costs a timer and a getsockopt a second, and a fast GET waits a few times per GiB
    /// (docs/results/2026-11-28-slow-readers.md).
    /// </summary>
    private async ValueTask WhileSocketFullAsync(ValueTask sending, FileSend send)
    {
        if (sending.IsCompleted || ClientReadWatch.TryStart(_socket, send.Response) is not { } client)
        {
            await sending;
            return;
        }

        await client.WaitAsync(sending.AsTask(), send.LetWaiterGo);
    }

    /// <summary>A file's bytes to send once the pipe's bytes up to <see cref="Position"/> are sent.</summary>
    private sealed class FileSend(SafeFileHandle file, long offset, long count, long position, HttpContext? response, CancellationToken cancellationToken)
    {
        public SafeFileHandle File { get; } = file;

        public long Offset { get; } = offset;

        public long Count { get; } = count;

        public long Position { get; } = position;

        /// <summary>The response the bytes are for, whose minimum data rate the client is held to (null: not held to any).</summary>
        public HttpContext? Response { get; } = response;

        public CancellationToken CancellationToken { get; } = cancellationToken;

        private readonly Lock _progressGate = new();
        private long _sent;
        private long _awaited;
        private bool _finished;
        private TaskCompletionSource? _progress;

        /// <summary>
        /// True once every byte has been sent; false if the connection ended first (the client left). Continuations run
        /// on the pool: the send loop must not run the rest of a response inline.
        /// </summary>
        public TaskCompletionSource<bool> Done { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        /// <summary>Whether the send has ended unsent because the client left (or the connection ended).</summary>
        public bool ClientLeft => Done.Task.IsCompletedSuccessfully && !Done.Task.Result;

        /// <summary>The file's bytes whose stand-ins Kestrel has been asked to flush: what its flush waits for.</summary>
        public long FlushedUpTo { get; set; }

        /// <summary>
        /// The send loop's report: <paramref name="sent"/> of the file's bytes have left. It wakes no waiting flush:
        /// a flush that comes back finds them sent, and one already waiting is let go by <see cref="WakeWaiter"/> when
        /// the loop is about to wait for the socket, or by <see cref="Finish"/> at the chunk's end. Woken at every
        /// 64 KiB piece instead, a fast client's 1 GiB GET took ~16,000 hops through the thread pool, whose workers
        /// spun between them (~5,000 sched_yield calls a GiB; the server's CPU per GiB 0.31 s against nginx's
        /// 0.16 with curl, docs/results/2026-11-27-get-cost.md). A slow client makes the loop wait for the socket
        /// at every few KiB, so its flushes are let go as soon as their bytes have left, as before.
        /// </summary>
        public void Progress(long sent)
        {
            lock (_progressGate)
            {
                _sent = sent;
            }
        }

        /// <summary>Lets go a waiting flush, its bytes sent or not: the client has not fallen behind (<see cref="WhileSocketFullAsync"/>).</summary>
        public void LetWaiterGo()
        {
            TaskCompletionSource? waiting;
            lock (_progressGate)
            {
                waiting = _progress;
                _progress = null;
            }

            waiting?.TrySetResult();
        }

        /// <summary>Lets go a flush waiting for bytes that have left (see <see cref="Progress"/>).</summary>
        public void WakeWaiter()
        {
            TaskCompletionSource? reached = null;
            lock (_progressGate)
            {
                if (_progress is not null && _sent >= _awaited)
                {
                    reached = _progress;
                    _progress = null;
                }
            }

            reached?.TrySetResult();
        }

        /// <summary>The send has ended, sent or failed (<see cref="Done"/> says which): no wait for progress lasts.</summary>
        public void Finish()
        {
            // No wait begins once this is set (WhenSentAsync reads it under the gate); the one already waiting goes.
            lock (_progressGate)
            {
                _finished = true;
            }

            LetWaiterGo();
        }

        /// <summary>
        /// Completes once <paramref name="bytes"/> of the file's bytes have left, the send has ended (<see cref="Done"/> says
        /// how), or a check of the client passes while the socket is full (<see cref="LetWaiterGo"/>); it never throws.
        /// </summary>
        public Task WhenSentAsync(long bytes)
        {
            lock (_progressGate)
            {
                if (_finished || _sent >= bytes)
                {
                    return Task.CompletedTask;
                }

                // A slow client: one wait per 64 KiB piece; a fast one: the loop wakes the wait at the chunk's end.
                _awaited = bytes;
                _progress = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                return _progress.Task;
            }
        }
    }
}
