using System.Buffers;
using System.Net;

namespace Freight.Bench.Load.Engine;

/// <summary>
/// Where a load run's request bodies come from (<see cref="LoadOptions.Body"/>): a source that writes its
/// bytes, in order, to a stream, as many times as requests are sent and from many requests at once. It is
/// never held whole in memory: each request streams it through a pooled buffer of <see cref="WriteBufferBytes"/>.
/// </summary>
public abstract class RequestBody
{
    /// <summary>
    /// One pooled buffer per request in flight: 1 MiB, as the put command's file reads (Client/FileHasher), so a
    /// large upload costs a write per MiB; at 500 connections that is 500 MiB, so many-connection runs of
    /// small bodies rent only what the body needs.
    /// </summary>
    public const int WriteBufferBytes = 1024 * 1024;

    /// <summary>The body's exact length, sent as Content-Length.</summary>
    public abstract long Length { get; }

    /// <summary>The Content-Type sent unless the run sets its own with a header.</summary>
    public abstract string ContentType { get; }

    /// <summary>
    /// The file whose bytes are exactly this body, so the raw HTTP/1.1 transport can send it from the file itself
    /// instead of through <see cref="WriteAsync"/>; null for bodies made or wrapped as they are sent.
    /// </summary>
    internal virtual string? SendableFile => null;

    /// <summary>Writes the whole body to <paramref name="destination"/> through <paramref name="buffer"/>.</summary>
    public abstract ValueTask WriteAsync(Stream destination, byte[] buffer, CancellationToken cancellationToken);

    /// <summary>A fresh content for one request: HttpClient sends it with Content-Length and may send it again.</summary>
    internal HttpContent CreateContent() => new Content(this);

    private sealed class Content(RequestBody body) : HttpContent
    {
        protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context) =>
            SerializeToStreamAsync(stream, context, CancellationToken.None);

        protected override async Task SerializeToStreamAsync(Stream stream, TransportContext? context, CancellationToken cancellationToken)
        {
            var buffer = ArrayPool<byte>.Shared.Rent((int)Math.Clamp(body.Length, 1, WriteBufferBytes));
            try
            {
                await body.WriteAsync(stream, buffer, cancellationToken);
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(buffer);
            }
        }

        protected override bool TryComputeLength(out long length)
        {
            length = body.Length;
            return true;
        }
    }
}
