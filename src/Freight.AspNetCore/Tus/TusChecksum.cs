using System.Buffers;
using System.Security.Cryptography;

namespace Freight.AspNetCore.Tus;

/// <summary>The checksum extension: one chunk's hash, run while its bytes stream to the store, compared at its end.</summary>
internal sealed class TusChecksum(string name, HashAlgorithmName algorithm, byte[] expected) : IDisposable
{
    private readonly IncrementalHash _hash = IncrementalHash.CreateHash(algorithm);

    public string Name { get; } = name;

    public void Append(in ReadOnlySequence<byte> data)
    {
        foreach (var segment in data)
        {
            _hash.AppendData(segment.Span);
        }
    }

    public bool Matches() => CryptographicOperations.FixedTimeEquals(_hash.GetHashAndReset(), expected);

    public void Dispose() => _hash.Dispose();
}
