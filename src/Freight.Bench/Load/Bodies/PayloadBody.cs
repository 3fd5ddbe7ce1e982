using Freight.Bench.Load.Engine;
using Freight.Lab.Payload;

namespace Freight.Bench.Load.Bodies;

/// <summary>
/// <c>--size N</c>: the first N bytes of the deterministic payload (Freight.Payload), generated chunk by chunk
/// at its offset as it is sent, so a server that knows the seed can check it and no body is kept.
/// </summary>
public sealed class PayloadBody(long length) : RequestBody
{
    public override long Length { get; } = length >= 0 ? length : throw new ArgumentOutOfRangeException(nameof(length));

    public override string ContentType => "application/octet-stream";

    public override async ValueTask WriteAsync(Stream destination, byte[] buffer, CancellationToken cancellationToken)
    {
        for (long offset = 0; offset < Length;)
        {
            var take = (int)Math.Min(buffer.Length, Length - offset);
            DeterministicPayload.Fill(buffer.AsSpan(0, take), offset);
            await destination.WriteAsync(buffer.AsMemory(0, take), cancellationToken);
            offset += take;
        }
    }
}
