using System.IO.Hashing;
using Freight.Hashing;
using Freight.Lab.Payload;

namespace Freight.Bench.Load;

/// <summary>The bench's copy of the payload: in memory, as a file (for the "file" source), and its hash.</summary>
public sealed class ClientPayload : IDisposable
{
    private ClientPayload(byte[] bytes, string filePath)
    {
        Bytes = bytes;
        FilePath = filePath;
        Hash = HashHex.ToHex(XxHash128.HashToUInt128(bytes));
    }

    public byte[] Bytes { get; }

    public long Length => Bytes.LongLength;

    /// <summary>The same bytes on disk, the client-side source of the "file" scenarios.</summary>
    public string FilePath { get; }

    /// <summary>XXH3-128 of the payload, what every transfer must reproduce.</summary>
    public string Hash { get; }

    public static ClientPayload Create(long size, string workDirectory)
    {
        var bytes = DeterministicPayload.Create(size);
        var path = Path.Combine(workDirectory, $"client-payload-{size}.bin");
        DeterministicPayload.WriteFile(path, size);
        return new ClientPayload(bytes, path);
    }

    public void Dispose() => File.Delete(FilePath);
}
