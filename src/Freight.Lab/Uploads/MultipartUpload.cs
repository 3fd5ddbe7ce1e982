using System.IO.Hashing;
using Freight.Hashing;
using Freight.Multipart;
using Freight.Storage;

namespace Freight.Lab.Uploads;

/// <summary>Streams the current file section of a <see cref="MultipartPipeReader"/> into storage.</summary>
public static class MultipartUpload
{
    /// <summary>
    /// Hashes the section's bytes in place and writes each chunk (a slice of the request's own buffers)
    /// to <paramref name="writer"/>, or only hashes when <paramref name="writer"/> is null.
    /// </summary>
    public static async ValueTask<UploadResult> CopySectionAsync(MultipartPipeReader reader, IObjectWriter? writer, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(reader);
        var hasher = new XxHash128();
        long length = 0;
        try
        {
            while (true)
            {
                var chunk = await reader.ReadSectionDataAsync(cancellationToken);
                foreach (var segment in chunk.Data)
                {
                    hasher.Append(segment.Span);
                }

                length += chunk.Data.Length;

                if (writer is not null && !chunk.Data.IsEmpty)
                {
                    await writer.WriteAsync(chunk.Data, cancellationToken);
                }

                if (chunk.IsCompleted)
                {
                    break;
                }
            }
        }
        finally
        {
            reader.ReleaseChunk();
        }

        return new UploadResult(length, HashHex.ToHex(hasher.GetCurrentHashAsUInt128()));
    }
}
