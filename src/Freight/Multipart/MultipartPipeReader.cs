using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using System.Text;

namespace Freight.Multipart;

/// <summary>
/// Streaming, zero-copy reader of a <c>multipart/*</c> body (RFC 2046 §5.1, RFC 7578) over a <see cref="PipeReader"/>.
/// Section data is handed out as slices of the pipe's own buffer; nothing is copied, buffered in full or spilled to disk.
/// </summary>
/// <remarks>
/// Not thread-safe; one consumer. The reader never completes <see cref="PipeReader"/> (the caller owns it), but after the
/// closing delimiter it reads the epilogue to the end of the body. Malformed input throws
/// <see cref="MultipartFormatException"/>; after any exception the reader is unusable.
/// </remarks>
public sealed class MultipartPipeReader
{
    private readonly PipeReader _body;

    // RFC 2046 §5.1.1: delimiter := CRLF dash-boundary, dash-boundary := "--" boundary.
    private readonly byte[] _delimiter;
    private readonly MultipartLimits _limits;

    // One list for every section's header lines: a section keeps its own copy (an array), so this is reused.
    private readonly List<KeyValuePair<string, string>> _headers = [];

    private State _state = State.Preamble;
    private bool _faultedByFormat;
    private int _sectionCount;

    // The last data chunk still references the pipe's buffer; it is returned to the pipe on the next call.
    private bool _hasPendingAdvance;
    private SequencePosition _pendingConsumed;
    private SequencePosition _pendingExamined;

    // The read behind a section's last chunk, which ended at the delimiter: the next boundary line and headers are
    // parsed from it without returning it to the pipe and reading it again (small parts: most of their cost).
    private ReadOnlySequence<byte> _heldBuffer;
    private bool _heldIsCompleted;

    /// <summary>Creates a reader of <paramref name="body"/> delimited by <paramref name="boundary"/> (see <see cref="MultipartBoundary.TryParse"/>).</summary>
    /// <exception cref="ArgumentException">The boundary is not 1–70 RFC 2046 bchars.</exception>
    public MultipartPipeReader(PipeReader body, string boundary, MultipartLimits? limits = null)
    {
        ArgumentNullException.ThrowIfNull(body);
        ArgumentNullException.ThrowIfNull(boundary);
        if (!MultipartBoundary.IsValid(boundary))
        {
            throw new ArgumentException("The boundary must be 1 to 70 RFC 2046 bchars, not ending in a space.", nameof(boundary));
        }

        _body = body;
        _delimiter = new byte[4 + boundary.Length];
        "\r\n--"u8.CopyTo(_delimiter);
        Encoding.ASCII.GetBytes(boundary, _delimiter.AsSpan(4));

        // Snapshot so later changes to a shared options object cannot affect a body being parsed.
        limits ??= MultipartLimits.Default;
        _limits = new MultipartLimits
        {
            MaxHeadersBytes = limits.MaxHeadersBytes,
            MaxHeaderCount = limits.MaxHeaderCount,
            MaxSections = limits.MaxSections,
        };
    }

    private enum State
    {
        Preamble,
        AfterDelimiter,
        Body,
        Done,
        Faulted,
    }

    /// <summary>
    /// Skips the preamble or the unread rest of the current section and reads the next section's headers.
    /// Returns null after the closing delimiter (the epilogue is read and discarded).
    /// </summary>
    /// <exception cref="MultipartFormatException">The body is malformed or exceeds a limit.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<MultipartSection?> ReadNextSectionAsync(CancellationToken cancellationToken = default)
    {
        // After a section's last chunk the pipe's read is kept for the next boundary line (ReadBoundaryLineAndHeadersAsync).
        if (_state != State.AfterDelimiter)
        {
            ReleaseChunk();
        }

        ThrowIfFaulted();
        try
        {
            switch (_state)
            {
                case State.Done:
                    return null;
                case State.Preamble:
                    await SkipPastDelimiterAsync(atBodyStart: true, cancellationToken).ConfigureAwait(false);
                    break;
                case State.Body:
                    await SkipPastDelimiterAsync(atBodyStart: false, cancellationToken).ConfigureAwait(false);
                    break;
            }

            var section = await ReadBoundaryLineAndHeadersAsync(cancellationToken).ConfigureAwait(false);
            if (section is null)
            {
                _state = State.Done;
                await DrainEpilogueAsync(cancellationToken).ConfigureAwait(false);
                return null;
            }

            _state = State.Body;
            return section;
        }
        catch (Exception ex)
        {
            Fault(ex);
            throw;
        }
    }

    /// <summary>
    /// Returns the next chunk of the current section's body. <see cref="MultipartDataChunk.Data"/> is a slice of the
    /// pipe's buffer (no copy), valid until the next call on this reader. The chunk with
    /// <see cref="MultipartDataChunk.IsCompleted"/> set is the last one and may still carry data; later calls return
    /// an empty completed chunk until <see cref="ReadNextSectionAsync"/> is called.
    /// </summary>
    /// <exception cref="MultipartFormatException">The body ends before the section's delimiter.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<MultipartDataChunk> ReadSectionDataAsync(CancellationToken cancellationToken = default)
    {
        ReleaseChunk();
        if (_state != State.Body)
        {
            ThrowIfFaulted();
            return new MultipartDataChunk(ReadOnlySequence<byte>.Empty, isCompleted: true);
        }

        try
        {
            while (true)
            {
                var result = await _body.ReadAsync(cancellationToken).ConfigureAwait(false);
                var buffer = result.Buffer;
                ThrowIfCanceled(result);

                if (DelimiterSearch.TryFind(buffer, _delimiter, out var matchStart, out var safeEnd))
                {
                    // RFC 2046 §5.1.1: the CRLF before "--boundary" belongs to the delimiter, not to the data.
                    var afterDelimiter = buffer.GetPosition(_delimiter.Length, matchStart);
                    SetPending(afterDelimiter, afterDelimiter);
                    _heldBuffer = buffer;
                    _heldIsCompleted = result.IsCompleted;
                    _state = State.AfterDelimiter;
                    return new MultipartDataChunk(buffer.Slice(buffer.Start, matchStart), isCompleted: true);
                }

                if (result.IsCompleted)
                {
                    _body.AdvanceTo(buffer.Start, buffer.End);
                    throw new MultipartFormatException("The multipart body ends before the section's closing delimiter.");
                }

                // Hand out everything that cannot begin a delimiter. Marking the whole buffer examined makes the
                // next ReadAsync wait for new bytes instead of returning the held-back tail again.
                var data = buffer.Slice(buffer.Start, safeEnd);
                if (!data.IsEmpty)
                {
                    SetPending(safeEnd, buffer.End);
                    return new MultipartDataChunk(data, isCompleted: false);
                }

                _body.AdvanceTo(buffer.Start, buffer.End);
            }
        }
        catch (Exception ex)
        {
            Fault(ex);
            throw;
        }
    }

    /// <summary>
    /// Reads the rest of the current section as UTF-8 text (RFC 7578 §5.1.2: form fields default to UTF-8).
    /// </summary>
    /// <exception cref="MultipartFormatException">The section has more than <paramref name="maxBytes"/> bytes, or the body is malformed.</exception>
    public async ValueTask<string> ReadSectionAsStringAsync(int maxBytes, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(maxBytes);

        var chunk = await ReadSectionDataAsync(cancellationToken).ConfigureAwait(false);

        // Common case: the whole value is already buffered; decode straight from the pipe's memory.
        if (chunk.IsCompleted)
        {
            ThrowIfTooLong(chunk.Data.Length, maxBytes);
            return Encoding.UTF8.GetString(chunk.Data);
        }

        byte[]? rented = null;
        try
        {
            var length = 0;
            while (true)
            {
                var data = chunk.Data;
                ThrowIfTooLong(length + data.Length, maxBytes);
                if (rented is null || rented.Length - length < data.Length)
                {
                    var larger = ArrayPool<byte>.Shared.Rent((int)Math.Min(maxBytes, Math.Max(256, 2 * (length + data.Length))));
                    if (rented is not null)
                    {
                        rented.AsSpan(0, length).CopyTo(larger);
                        ArrayPool<byte>.Shared.Return(rented);
                    }

                    rented = larger;
                }

                data.CopyTo(rented.AsSpan(length));
                length += (int)data.Length;
                if (chunk.IsCompleted)
                {
                    return Encoding.UTF8.GetString(rented, 0, length);
                }

                chunk = await ReadSectionDataAsync(cancellationToken).ConfigureAwait(false);
            }
        }
        finally
        {
            if (rented is not null)
            {
                ArrayPool<byte>.Shared.Return(rented);
            }
        }
    }

    /// <summary>
    /// Returns the buffer behind the last chunk to the <see cref="PipeReader"/>. Optional: every other call does it
    /// first. Call it (e.g. in a finally) when abandoning the reader mid-section so the pipe is not left mid-read.
    /// </summary>
    public void ReleaseChunk()
    {
        if (_hasPendingAdvance)
        {
            _hasPendingAdvance = false;
            _heldBuffer = default;
            _body.AdvanceTo(_pendingConsumed, _pendingExamined);
        }
    }

    /// <summary>Discards bytes up to and including the next delimiter (preamble or the unread rest of a section).</summary>
    private async ValueTask SkipPastDelimiterAsync(bool atBodyStart, CancellationToken cancellationToken)
    {
        while (true)
        {
            var result = await _body.ReadAsync(cancellationToken).ConfigureAwait(false);
            var buffer = result.Buffer;
            ThrowIfCanceled(result);
            var consumed = buffer.Start;
            var examined = buffer.End;
            try
            {
                if (atBodyStart)
                {
                    // RFC 2046 §5.1.1: the first dash-boundary may open the body with no CRLF before it (empty preamble).
                    var start = MatchBodyStart(buffer, _delimiter.AsSpan(2), out var afterDashBoundary);
                    if (start == BodyStart.NeedMoreData && !result.IsCompleted)
                    {
                        continue;
                    }

                    atBodyStart = false;
                    if (start == BodyStart.Match)
                    {
                        consumed = examined = afterDashBoundary;
                        _state = State.AfterDelimiter;
                        return;
                    }
                }

                if (DelimiterSearch.TryFind(buffer, _delimiter, out var matchStart, out var safeEnd))
                {
                    consumed = examined = buffer.GetPosition(_delimiter.Length, matchStart);
                    _state = State.AfterDelimiter;
                    return;
                }

                if (result.IsCompleted)
                {
                    throw new MultipartFormatException(_state == State.Preamble
                        ? "The multipart body does not contain the boundary."
                        : "The multipart body ends before the section's closing delimiter.");
                }

                consumed = safeEnd;
            }
            finally
            {
                _body.AdvanceTo(consumed, examined);
            }
        }
    }

    /// <summary>
    /// Reads the rest of the boundary line and, unless it is the close-delimiter, the section's headers: one read of the
    /// pipe for both when they are buffered, as a small part's are. RFC 2046 §5.1.1: "--" makes it the
    /// close-delimiter; otherwise only transport-padding (LWSP) may precede the CRLF. Returns null for the
    /// close-delimiter.
    /// </summary>
    private async ValueTask<MultipartSection?> ReadBoundaryLineAndHeadersAsync(CancellationToken cancellationToken)
    {
        var boundaryLineRead = false;
        var headerBytes = 0;
        _headers.Clear();
        while (true)
        {
            ReadResult result;
            if (_hasPendingAdvance)
            {
                // The last chunk's read, from just after its delimiter: still the pipe's current read.
                _hasPendingAdvance = false;
                result = new ReadResult(_heldBuffer.Slice(_pendingConsumed), isCanceled: false, isCompleted: _heldIsCompleted);
                _heldBuffer = default;
            }
            else
            {
                result = await _body.ReadAsync(cancellationToken).ConfigureAwait(false);
            }

            var buffer = result.Buffer;
            ThrowIfCanceled(result);
            var consumed = buffer.Start;
            var examined = buffer.End;
            try
            {
                if (!boundaryLineRead)
                {
                    var line = ParseBoundaryLine(buffer, out var end);
                    if (line == BoundaryLine.NeedMoreData)
                    {
                        if (result.IsCompleted)
                        {
                            throw new MultipartFormatException("The multipart body ends inside a boundary line.");
                        }

                        // Only padding is buffered; bound it like a header block.
                        if (buffer.Length > _limits.MaxHeadersBytes)
                        {
                            throw new MultipartFormatException("A multipart boundary line is too long.");
                        }

                        continue;
                    }

                    consumed = end;
                    if (line == BoundaryLine.Close)
                    {
                        examined = end;
                        return null;
                    }

                    if (++_sectionCount > _limits.MaxSections)
                    {
                        throw new MultipartFormatException($"The multipart body has more than {_limits.MaxSections} sections.");
                    }

                    boundaryLineRead = true;
                }

                if (MultipartHeaderParser.TryParse(buffer.Slice(consumed), _headers, ref headerBytes, _limits, out consumed))
                {
                    examined = consumed;
                    return MultipartHeaderParser.CreateSection(_headers);
                }

                if (result.IsCompleted)
                {
                    throw new MultipartFormatException("The multipart body ends inside a section's headers.");
                }
            }
            finally
            {
                _body.AdvanceTo(consumed, examined);
            }
        }
    }

    /// <summary>RFC 2046 §5.1.1: everything after the close-delimiter is epilogue, to be ignored.</summary>
    private async ValueTask DrainEpilogueAsync(CancellationToken cancellationToken)
    {
        while (true)
        {
            var result = await _body.ReadAsync(cancellationToken).ConfigureAwait(false);
            _body.AdvanceTo(result.Buffer.End);
            if (result.IsCanceled)
            {
                throw new OperationCanceledException("The pending read on the multipart body was canceled.");
            }

            if (result.IsCompleted)
            {
                return;
            }
        }
    }

    private static BodyStart MatchBodyStart(in ReadOnlySequence<byte> buffer, ReadOnlySpan<byte> dashBoundary, out SequencePosition end)
    {
        var reader = new SequenceReader<byte>(buffer);
        if (buffer.Length < dashBoundary.Length)
        {
            end = default;
            return reader.IsNext(dashBoundary[..(int)buffer.Length]) ? BodyStart.NeedMoreData : BodyStart.NoMatch;
        }

        if (reader.IsNext(dashBoundary, advancePast: true))
        {
            end = reader.Position;
            return BodyStart.Match;
        }

        end = default;
        return BodyStart.NoMatch;
    }

    private static BoundaryLine ParseBoundaryLine(in ReadOnlySequence<byte> buffer, out SequencePosition end)
    {
        end = default;
        var reader = new SequenceReader<byte>(buffer);
        if (reader.Remaining < 2)
        {
            return BoundaryLine.NeedMoreData;
        }

        if (reader.IsNext("--"u8, advancePast: true))
        {
            end = reader.Position;
            return BoundaryLine.Close;
        }

        reader.AdvancePastAny((byte)' ', (byte)'\t');
        if (reader.Remaining == 0 || (reader.Remaining == 1 && reader.IsNext((byte)'\r')))
        {
            return BoundaryLine.NeedMoreData;
        }

        // A line that merely starts with the boundary is still a boundary line (RFC 2046 §5.1.1 note); anything
        // but padding after it is malformed. Refusing (rather than reading it as data) keeps us from disagreeing
        // silently with other parsers about where parts begin.
        if (!reader.IsNext("\r\n"u8, advancePast: true))
        {
            throw new MultipartFormatException("Unexpected characters follow a multipart boundary.");
        }

        end = reader.Position;
        return BoundaryLine.Open;
    }

    private void ThrowIfTooLong(long length, int maxBytes)
    {
        if (length > maxBytes)
        {
            // Leave the pipe usable: the caller will most likely stop reading here.
            ReleaseChunk();
            throw new MultipartFormatException($"A multipart section is longer than {maxBytes} bytes.");
        }
    }

    private void ThrowIfCanceled(in ReadResult result)
    {
        if (result.IsCanceled)
        {
            _body.AdvanceTo(result.Buffer.Start);
            throw new OperationCanceledException("The pending read on the multipart body was canceled.");
        }
    }

    private void SetPending(SequencePosition consumed, SequencePosition examined)
    {
        _pendingConsumed = consumed;
        _pendingExamined = examined;
        _hasPendingAdvance = true;
    }

    private void Fault(Exception exception)
    {
        _state = State.Faulted;
        _faultedByFormat = exception is MultipartFormatException;
    }

    private void ThrowIfFaulted()
    {
        if (_state == State.Faulted)
        {
            // Keep malformed input reported as malformed even when the caller carries on after the first error.
            throw _faultedByFormat
                ? new MultipartFormatException("The multipart body is malformed (reported earlier).")
                : new InvalidOperationException("The multipart reader failed earlier and cannot continue.");
        }
    }

    private enum BodyStart
    {
        NoMatch,
        Match,
        NeedMoreData,
    }

    private enum BoundaryLine
    {
        NeedMoreData,
        Open,
        Close,
    }
}
