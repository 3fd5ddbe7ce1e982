using System.Buffers;
using System.Net;

namespace Freight.Bench.Client;

/// <summary>
/// A request body read from a file in 1 MiB pieces, with a declared length: HttpClient sends
/// Content-Length, and the file must still have exactly that many bytes (the digest was computed over them).
/// </summary>
internal sealed class FileUploadContent(string path, long declaredLength, TransferProgress progress) : HttpContent
{
    protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context) =>
        SerializeToStreamAsync(stream, context, CancellationToken.None);

    protected override async Task SerializeToStreamAsync(Stream stream, TransportContext? context, CancellationToken cancellationToken)
    {
        // HttpClient may send the body again (a pooled connection the server had closed): count from zero each time.
        progress.Report(0);
        var buffer = ArrayPool<byte>.Shared.Rent(FileHasher.BufferBytes);
        try
        {
            await using var file = FileHasher.OpenSequential(path);
            long sent = 0;
            int read;
            while ((read = await file.ReadAsync(buffer.AsMemory(0, FileHasher.BufferBytes), cancellationToken)) > 0)
            {
                if (sent + read > declaredLength)
                {
                    throw new IOException($"{path} grew while it was sent: it is no longer the {declaredLength} bytes that were hashed.");
                }

                await stream.WriteAsync(buffer.AsMemory(0, read), cancellationToken);
                sent += read;
                progress.Report(sent);
            }

            if (sent != declaredLength)
            {
                throw new IOException($"{path} shrank while it was sent: {sent} bytes, not the {declaredLength} that were hashed.");
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    protected override bool TryComputeLength(out long length)
    {
        length = declaredLength;
        return true;
    }
}
