using System.IO.Pipelines;
using Microsoft.Win32.SafeHandles;

namespace Freight.Downloads;

/// <summary>
/// Freight's download path: reads a file range straight into the response <see cref="PipeWriter"/>'s
/// own memory with positional reads, so the bytes are copied once (page cache → output buffer) instead
/// of twice (page cache → copy buffer → output buffer) as in the stock stream copy loop.
/// </summary>
public static class FileSender
{
    /// <summary>
    /// Largest read into the writer. Fewer, larger reads mean fewer syscalls and flushes: server CPU per GiB
    /// for download/freight was 0.73 s at 64 KiB, 0.47 s at 256 KiB and 0.38 s at 1 MiB
    /// (`freight bench --quick --runs 5 --filter download/`, 20 MiB, HTTP/1.1, see docs/results/).
    /// </summary>
    public const int MaxChunkSize = 1024 * 1024;

    /// <summary>First read: small, so the first bytes leave quickly; each later read doubles up to <see cref="MaxChunkSize"/>.</summary>
    public const int FirstChunkSize = 64 * 1024;

    /// <summary>
    /// Reads <paramref name="count"/> bytes of <paramref name="file"/> from <paramref name="offset"/> into
    /// <paramref name="writer"/> without flushing: for small ranges that the caller sends in one flush.
    /// </summary>
    public static void Read(PipeWriter writer, SafeFileHandle file, long offset, long count)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentNullException.ThrowIfNull(file);
        while (count > 0)
        {
            var span = writer.GetSpan((int)Math.Min(MaxChunkSize, count));
            if (span.Length > count)
            {
                span = span[..(int)count];
            }

            var read = RandomAccess.Read(file, span, offset);
            if (read == 0)
            {
                throw new EndOfStreamException($"The file ended {count} bytes before the range did.");
            }

            writer.Advance(read);
            offset += read;
            count -= read;
        }
    }

    /// <summary>Sends <paramref name="count"/> bytes of <paramref name="file"/> from <paramref name="offset"/>.</summary>
    public static async Task SendAsync(PipeWriter writer, SafeFileHandle file, long offset, long count, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentNullException.ThrowIfNull(file);
        var chunkSize = FirstChunkSize;
        while (count > 0)
        {
            var memory = writer.GetMemory((int)Math.Min(chunkSize, count));
            chunkSize = Math.Min(chunkSize * 2, MaxChunkSize);
            if (memory.Length > count)
            {
                memory = memory[..(int)count];
            }

            // A synchronous positional read: the file is almost always in the page cache, where a read is
            // a memcpy; the async variant costs a thread-pool hop per chunk on Linux for no gain.
            var read = RandomAccess.Read(file, memory.Span, offset);
            if (read == 0)
            {
                throw new EndOfStreamException($"The file ended {count} bytes before the range did.");
            }

            writer.Advance(read);
            offset += read;
            count -= read;

            var flush = await writer.FlushAsync(cancellationToken);
            if (flush.IsCanceled || flush.IsCompleted)
            {
                return;
            }
        }
    }
}
