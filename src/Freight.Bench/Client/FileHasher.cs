using System.Buffers;
using Freight.Digests;

namespace Freight.Bench.Client;

/// <summary>Hashes a file, or its first bytes, streaming.</summary>
internal static class FileHasher
{
    /// <summary>
    /// 1 MiB reads: 1024 read calls per GiB, so the hash (SHA-256, ~1.4 GB/s a core) and not the system
    /// calls sets the pace; a larger buffer does not make the hash faster.
    /// </summary>
    public const int BufferBytes = 1024 * 1024;

    /// <summary>Hashes the first <paramref name="length"/> bytes of <paramref name="file"/> into <paramref name="digests"/>.</summary>
    /// <exception cref="IOException">The file ends before <paramref name="length"/> bytes.</exception>
    public static async Task AppendAsync(FileStream file, long length, StreamingDigests digests, TransferProgress progress, CancellationToken cancellationToken)
    {
        var buffer = ArrayPool<byte>.Shared.Rent(BufferBytes);
        try
        {
            var remaining = length;
            while (remaining > 0)
            {
                var read = await file.ReadAsync(buffer.AsMemory(0, (int)Math.Min(BufferBytes, remaining)), cancellationToken);
                if (read == 0)
                {
                    throw new IOException($"{file.Name} ended after {length - remaining} of {length} bytes.");
                }

                digests.Append(buffer.AsSpan(0, read));
                remaining -= read;
                progress.Advance(read);
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    /// <summary>Opens <paramref name="path"/> for one front-to-back read (no FileStream buffer: the reads are 1 MiB).</summary>
    public static FileStream OpenSequential(string path) =>
        new(path, FileMode.Open, FileAccess.Read, FileShare.Read, bufferSize: 0, FileOptions.Asynchronous | FileOptions.SequentialScan);
}
