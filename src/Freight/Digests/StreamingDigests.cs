using System.Buffers;
using System.IO.Hashing;
using System.Security.Cryptography;

namespace Freight.Digests;

/// <summary>
/// Hashes a body once, as it streams, with every digest algorithm asked for and always an XXH3-128 for the
/// entity tag; <see cref="Complete"/> gives the results, which verify what the client sent.
/// </summary>
/// <remarks>
/// <para>
/// Ask only for the algorithms needed — the ones the client sent (<see cref="DigestFields.VerifiableAlgorithms"/>,
/// MD5 when a <c>Content-MD5</c> came) and any the server stores: SHA-256 runs at about 1.4 GB/s a core here,
/// several times slower than XXH3, so every extra algorithm costs CPU on every byte.
/// </para>
/// <para>
/// Content-Digest (RFC 9530 §2) covers the content — the message body as sent, after any Content-Encoding —
/// while Repr-Digest (§3) covers the selected representation's data. Both are checked against the bytes
/// appended here, which is right only when they are the same bytes: a full PUT with no Content-Encoding.
/// Callers reject a Content-Encoding (and partial content) on PUT before verifying with this type.
/// </para>
/// <para>Not thread-safe: one instance per body. Dispose it to release the native hash contexts.</para>
/// </remarks>
public sealed class StreamingDigests : IDisposable
{
    private readonly DigestAlgorithm[] _algorithms;
    private readonly IncrementalHash[] _hashes;
    private readonly XxHash128 _contentHash = new();
    private long _length;
    private ComputedDigests? _result;
    private bool _disposed;

    /// <summary>Computes only the XXH3-128 content hash.</summary>
    public StreamingDigests()
        : this([])
    {
    }

    /// <summary>Computes each of <paramref name="algorithms"/> (duplicates once) and the XXH3-128 content hash.</summary>
    public StreamingDigests(IEnumerable<DigestAlgorithm> algorithms)
    {
        ArgumentNullException.ThrowIfNull(algorithms);
        var distinct = new List<DigestAlgorithm>();
        foreach (var algorithm in algorithms)
        {
            ArgumentNullException.ThrowIfNull(algorithm, nameof(algorithms));
            if (!distinct.Contains(algorithm))
            {
                distinct.Add(algorithm);
            }
        }

        _algorithms = [.. distinct];
        _hashes = new IncrementalHash[_algorithms.Length];
        try
        {
            for (var i = 0; i < _algorithms.Length; i++)
            {
                _hashes[i] = IncrementalHash.CreateHash(_algorithms[i].HashAlgorithmName);
            }
        }
        catch
        {
            // MD5 is unavailable where the platform forbids it (FIPS mode): release what was created.
            DisposeHashes();
            throw;
        }
    }

    /// <summary>The algorithms computed besides XXH3-128, each once.</summary>
    public IReadOnlyList<DigestAlgorithm> Algorithms => _algorithms;

    /// <summary>Number of bytes appended so far.</summary>
    public long Length => _length;

    /// <summary>Adds bytes to every hash.</summary>
    public void Append(ReadOnlySpan<byte> data)
    {
        ThrowIfNotAppendable();
        AppendCore(data);
    }

    /// <summary>Adds every segment of <paramref name="data"/> to every hash, in order, without allocating.</summary>
    public void Append(in ReadOnlySequence<byte> data)
    {
        ThrowIfNotAppendable();
        if (data.IsSingleSegment)
        {
            AppendCore(data.FirstSpan);
            return;
        }

        foreach (var segment in data)
        {
            AppendCore(segment.Span);
        }
    }

    /// <summary>Finishes every hash. Later calls return the same results; <see cref="Append(ReadOnlySpan{byte})"/> then throws.</summary>
    public ComputedDigests Complete()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (_result is null)
        {
            var digests = new byte[_hashes.Length][];
            for (var i = 0; i < _hashes.Length; i++)
            {
                digests[i] = _hashes[i].GetHashAndReset();
            }

            _result = new ComputedDigests(_length, _contentHash.GetCurrentHashAsUInt128(), _algorithms, digests);
        }

        return _result;
    }

    /// <inheritdoc />
    public void Dispose()
    {
        if (!_disposed)
        {
            _disposed = true;
            DisposeHashes();
        }
    }

    private void AppendCore(ReadOnlySpan<byte> data)
    {
        if (data.IsEmpty)
        {
            return;
        }

        var hashes = _hashes;
        for (var i = 0; i < hashes.Length; i++)
        {
            hashes[i].AppendData(data);
        }

        _contentHash.Append(data);
        _length += data.Length;
    }

    private void ThrowIfNotAppendable()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (_result is not null)
        {
            throw new InvalidOperationException("The digests are complete; no more data can be appended.");
        }
    }

    private void DisposeHashes()
    {
        foreach (var hash in _hashes)
        {
            hash?.Dispose();
        }
    }
}
