using System.Buffers;

namespace Freight.Multipart;

/// <summary>
/// One piece of a section's body as returned by <see cref="MultipartPipeReader.ReadSectionDataAsync"/>.
/// <see cref="Data"/> points into the <see cref="System.IO.Pipelines.PipeReader"/>'s buffer and is valid only
/// until the next call on the reader.
/// </summary>
public readonly struct MultipartDataChunk
{
    /// <summary>Creates a chunk.</summary>
    public MultipartDataChunk(ReadOnlySequence<byte> data, bool isCompleted)
    {
        Data = data;
        IsCompleted = isCompleted;
    }

    /// <summary>The bytes of this chunk (possibly empty). Not a copy: valid until the next call on the reader.</summary>
    public ReadOnlySequence<byte> Data { get; }

    /// <summary>
    /// True when this is the last chunk of the section. The last chunk may carry data, so consume
    /// <see cref="Data"/> before testing this flag.
    /// </summary>
    public bool IsCompleted { get; }
}
