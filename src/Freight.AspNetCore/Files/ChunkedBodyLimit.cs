using System.Buffers;
using System.IO.Pipelines;
using Freight.AspNetCore.Errors;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;

namespace Freight.AspNetCore.Files;

/// <summary>
/// The request's body limit (Kestrel's <c>MaxRequestBodySize</c>, as the request's
/// <see cref="IHttpMaxRequestBodySizeFeature"/> sets it) on an HTTP/1.1 chunked body, counted here in place of Kestrel,
/// so that the 413 can read off the rest of the body (<see cref="LingeringClose"/>). Kestrel meets that limit mid-body,
/// in its chunked reader, and fails the reader for good: every read after it throws the 413 again, the rest of the body
/// is never read, and closing with it unread reset the connection of a client still sending. A body with a
/// Content-Length needs none of this (Kestrel refuses it before its first byte is read, and can read it off after).
/// </summary>
/// <remarks>
/// The body's data bytes are counted, not its framing as Kestrel counts them, so a chunked body is held to the limit a
/// Content-Length body is. The refusal is Kestrel's own exception and message, so whoever handles Kestrel's (the problem
/// middleware, a form reader) handles it alike. Refused, the limit may be lifted again (<see cref="IsReadOnly"/>), for the
/// drain.
/// </remarks>
internal sealed class ChunkedBodyLimit : PipeReader, IHttpMaxRequestBodySizeFeature, IRequestBodyPipeFeature
{
    private readonly PipeReader _body;
    private long? _limit;

    // The body's bytes consumed so far, and the buffer of the last read (what AdvanceTo's position is in).
    private long _consumed;
    private ReadOnlySequence<byte> _read;
    private bool _started;
    private bool _refused;

    private ChunkedBodyLimit(PipeReader body, long limit)
    {
        _body = body;
        _limit = limit;
    }

    /// <summary>
    /// Takes the request's body limit over from Kestrel when its body is HTTP/1.1 chunked, not read yet, and limited:
    /// from here on the request's <see cref="IHttpMaxRequestBodySizeFeature"/> and <see cref="HttpRequest.BodyReader"/>
    /// are this one's. Any other request is left as it is. Only for <see cref="UploadLimiter.Follow"/>, which puts
    /// <see cref="HttpRequest.Body"/> over the reader too: Kestrel's stream would read around the count.
    /// </summary>
    public static void TakeOver(HttpContext context)
    {
        var request = context.Request;
        if (request.ContentLength is not null
            || request.Headers.TransferEncoding.Count == 0
            || !ProblemMiddleware.IsHttp1(context)
            || context.Features.Get<IHttpMaxRequestBodySizeFeature>() is not { IsReadOnly: false, MaxRequestBodySize: { } limit } kestrel)
        {
            return;
        }

        // Kestrel's reader, before Body is replaced: Kestrel's pipe feature would then read the new Body instead.
        var counted = new ChunkedBodyLimit(request.BodyReader, limit);
        kestrel.MaxRequestBodySize = null;
        context.Features.Set<IHttpMaxRequestBodySizeFeature>(counted);
        context.Features.Set<IRequestBodyPipeFeature>(counted);
    }

    /// <summary>Read-only once the body's first read came, as Kestrel's; after its refusal no longer, so that a drain can lift it.</summary>
    public bool IsReadOnly => _started && !_refused;

    public long? MaxRequestBodySize
    {
        get => _limit;
        set
        {
            if (IsReadOnly)
            {
                throw new InvalidOperationException("The maximum request body size cannot be modified after the app has already started reading from the request body.");
            }

            _limit = value;
        }
    }

    PipeReader IRequestBodyPipeFeature.Reader => this;

    public override async ValueTask<ReadResult> ReadAsync(CancellationToken cancellationToken = default) =>
        Counted(await _body.ReadAsync(cancellationToken));

    protected override async ValueTask<ReadResult> ReadAtLeastAsyncCore(int minimumSize, CancellationToken cancellationToken) =>
        Counted(await _body.ReadAtLeastAsync(minimumSize, cancellationToken));

    public override bool TryRead(out ReadResult result)
    {
        if (!_body.TryRead(out result))
        {
            return false;
        }

        result = Counted(result);
        return true;
    }

    public override void AdvanceTo(SequencePosition consumed)
    {
        Consume(consumed);
        _body.AdvanceTo(consumed);
    }

    public override void AdvanceTo(SequencePosition consumed, SequencePosition examined)
    {
        Consume(consumed);
        _body.AdvanceTo(consumed, examined);
    }

    public override void CancelPendingRead() => _body.CancelPendingRead();

    public override void Complete(Exception? exception = null) => _body.Complete(exception);

    public override ValueTask CompleteAsync(Exception? exception = null) => _body.CompleteAsync(exception);

    /// <summary>The read's result, or the 413 when the bytes it brings take the body past the limit (nothing consumed).</summary>
    private ReadResult Counted(in ReadResult result)
    {
        _started = true;
        if (_limit is not { } limit)
        {
            return result;
        }

        if (_consumed + result.Buffer.Length > limit)
        {
            _body.AdvanceTo(result.Buffer.Start);
            _refused = true;
            throw new BadHttpRequestException($"Request body too large. The max request body size is {limit} bytes.", StatusCodes.Status413PayloadTooLarge);
        }

        _read = result.Buffer;
        return result;
    }

    private void Consume(SequencePosition consumed)
    {
        if (_limit is not null)
        {
            _consumed += _read.Slice(_read.Start, consumed).Length;
        }
    }
}
