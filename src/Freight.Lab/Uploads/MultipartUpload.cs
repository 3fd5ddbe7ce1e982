using Freight.Digests;
using Freight.Hashing;
using Freight.Multipart;
using Freight.Storage;
using Freight.Uploads;

namespace Freight.Lab.Uploads;

/// <summary>Streams the current file section of a <see cref="MultipartPipeReader"/> into storage.</summary>
public static class MultipartUpload
{
    /// <summary>
    /// Hashes the section's bytes in place and writes each chunk (a slice of the request's own buffers)
    /// to <paramref name="writer"/>, or only hashes when <paramref name="writer"/> is null: the product's
    /// <see cref="UploadPipeline"/>, as a multipart file part of the files API runs it.
    /// </summary>
    public static async ValueTask<UploadResult> CopySectionAsync(MultipartPipeReader reader, IObjectWriter? writer, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(reader);
        using var digests = new StreamingDigests();
        var length = await UploadPipeline.CopyAsync(new MultipartSectionSource(reader), new LabSink(writer), digests, long.MaxValue, protocol: null, cancellationToken);
        return new UploadResult(length, HashHex.ToHex(digests.Complete().ContentHash));
    }
}
