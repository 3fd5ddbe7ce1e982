using System.IO.Pipelines;
using Freight.Multipart;
using Microsoft.AspNetCore.WebUtilities;

namespace Freight.Micro.Multipart;

/// <summary>
/// Reads every section of a body to its end with each parser, as an endpoint that streams uploads would: Freight's
/// <see cref="MultipartPipeReader"/> hands out slices of the pipe (no copy); ASP.NET Core's <see cref="MultipartReader"/>
/// reads its stream into its buffer and each section's body into the caller's. Both return the data bytes seen;
/// a <see cref="SectionRecorder"/>, when given, also records them (verification; never in a timed operation).
/// </summary>
public static class MultipartDrain
{
    /// <summary>Both parsers read in blocks of this size: the transport block Freight's pipe hands out.</summary>
    public const int BufferBytes = SegmentedBodyReader.BlockBytes;

    public static async Task<long> FreightAsync(PipeReader body, string boundary, MultipartLimits limits, SectionRecorder? recorder = null)
    {
        var reader = new MultipartPipeReader(body, boundary, limits);
        long bytes = 0;
        while (await reader.ReadNextSectionAsync().ConfigureAwait(false) is not null)
        {
            recorder?.StartSection();
            MultipartDataChunk chunk;
            do
            {
                chunk = await reader.ReadSectionDataAsync().ConfigureAwait(false);
                bytes += chunk.Data.Length;
                recorder?.Append(chunk.Data);
            }
            while (!chunk.IsCompleted);
        }

        return bytes;
    }

    /// <param name="buffer">The caller's read buffer (<see cref="BufferBytes"/>), reused across operations.</param>
    public static async Task<long> AspNetCoreAsync(Stream body, string boundary, byte[] buffer, SectionRecorder? recorder = null)
    {
        ArgumentNullException.ThrowIfNull(buffer);
        var reader = new MultipartReader(boundary, body, BufferBytes);
        long bytes = 0;
        while (await reader.ReadNextSectionAsync().ConfigureAwait(false) is { } section)
        {
            recorder?.StartSection();
            int read;
            while ((read = await section.Body.ReadAsync(buffer).ConfigureAwait(false)) > 0)
            {
                bytes += read;
                recorder?.Append(buffer.AsSpan(0, read));
            }
        }

        return bytes;
    }
}
