using System.Buffers.Binary;

namespace Freight.Lab.Payload;

/// <summary>
/// The bytes every lab endpoint and bench scenario moves: a seeded pseudo-random stream
/// (SplitMix64 output, little-endian words), so server and client agree on the content
/// without shipping it, and any range can be generated without generating what precedes it.
/// </summary>
public static class DeterministicPayload
{
    /// <summary>The seed used unless a caller asks for another one (the year of study 1).</summary>
    public const ulong DefaultSeed = 2017;

    /// <summary>Study 1 moved 20 MiB per request.</summary>
    public const long DefaultSize = 20L * 1024 * 1024;

    private const ulong Golden = 0x9E3779B97F4A7C15;

    /// <summary>Fills <paramref name="destination"/> with the payload bytes starting at <paramref name="offset"/>.</summary>
    public static void Fill(Span<byte> destination, long offset, ulong seed = DefaultSeed)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        var wordIndex = (ulong)offset / 8;
        var skip = (int)(offset % 8);
        Span<byte> word = stackalloc byte[8];

        if (skip != 0)
        {
            BinaryPrimitives.WriteUInt64LittleEndian(word, Word(seed, wordIndex++));
            var head = Math.Min(8 - skip, destination.Length);
            word.Slice(skip, head).CopyTo(destination);
            destination = destination[head..];
        }

        while (destination.Length >= 8)
        {
            BinaryPrimitives.WriteUInt64LittleEndian(destination, Word(seed, wordIndex++));
            destination = destination[8..];
        }

        if (destination.Length > 0)
        {
            BinaryPrimitives.WriteUInt64LittleEndian(word, Word(seed, wordIndex));
            word[..destination.Length].CopyTo(destination);
        }
    }

    /// <summary>Returns a new array holding the first <paramref name="length"/> payload bytes.</summary>
    public static byte[] Create(long length, ulong seed = DefaultSeed)
    {
        var bytes = GC.AllocateUninitializedArray<byte>(checked((int)length));
        Fill(bytes, 0, seed);
        return bytes;
    }

    /// <summary>Writes the payload to <paramref name="path"/> atomically (temp file, then rename).</summary>
    public static void WriteFile(string path, long length, ulong seed = DefaultSeed)
    {
        var directory = Path.GetDirectoryName(Path.GetFullPath(path))!;
        Directory.CreateDirectory(directory);
        // Named as the stores name theirs: one a killed server left in its data directory is swept at the next start
        // (FileSystemObjectStore.DeleteAbandonedTempFiles, over the whole data directory), however large.
        var temp = Path.Combine(directory, $".{Path.GetFileName(path)}.{Guid.NewGuid():N}{Freight.Storage.FileSystemObjectStore.TempSuffix}");
        var buffer = new byte[1024 * 1024];
        try
        {
            // Reserved as the stores reserve: a file that does not fit fails with ENOSPC, which OutOfSpace.Is knows
            // (.NET's own refused reservation is a bare IOException, without the errno).
            using (var handle = Freight.Storage.OutOfSpace.CreateReserving(temp, length))
            {
                for (long offset = 0; offset < length; offset += buffer.Length)
                {
                    var chunk = buffer.AsSpan(0, (int)Math.Min(buffer.Length, length - offset));
                    Fill(chunk, offset, seed);
                    RandomAccess.Write(handle, chunk, offset);
                }
            }

            File.Move(temp, path, overwrite: true);
        }
        finally
        {
            File.Delete(temp);
        }
    }

    // SplitMix64: the i-th output for state seed + (i + 1) * golden ratio.
    private static ulong Word(ulong seed, ulong index)
    {
        var z = seed + ((index + 1) * Golden);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
        return z ^ (z >> 31);
    }
}
