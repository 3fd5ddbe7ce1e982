using System.Collections.Concurrent;
using Freight.Digests;

namespace Freight.Resumable;

/// <summary>
/// The digests of each upload's bytes so far, kept by the node that received them, so the finished file's
/// ETag (and SHA-256 when asked for) costs nothing at the end. Only a cache: after a restart, on another
/// node, or once a chunk was taken back, it no longer covers the stored bytes, and the completion reads them
/// once instead (<see cref="ComputeAsync"/>).
/// </summary>
internal sealed class RunningDigests(IReadOnlyList<DigestAlgorithm> algorithms, int maxUploads = 10_000) : IDisposable
{
    private readonly ConcurrentDictionary<string, StreamingDigests> _running = new(StringComparer.Ordinal);

    /// <summary>The digests of the upload's first <paramref name="offset"/> bytes, to continue; a fresh set at 0; null when not known here.</summary>
    public StreamingDigests? Take(string id, long offset)
    {
        if (_running.TryRemove(id, out var digests))
        {
            if (digests.Length == offset)
            {
                return digests;
            }

            digests.Dispose();
        }

        return offset == 0 ? new StreamingDigests(algorithms) : null;
    }

    /// <summary>Keeps <paramref name="digests"/> for the upload's next append (it covers every stored byte).</summary>
    public void Keep(string id, StreamingDigests digests)
    {
        ArgumentNullException.ThrowIfNull(digests);
        // A cap so abandoned uploads cannot grow it without bound; past it the completion reads the bytes.
        if (_running.Count >= maxUploads || !_running.TryAdd(id, digests))
        {
            digests.Dispose();
        }
    }

    public void Forget(string id)
    {
        if (_running.TryRemove(id, out var digests))
        {
            digests.Dispose();
        }
    }

    /// <summary>Digests of the upload's stored bytes, read from the store (when the running ones were lost).</summary>
    public async ValueTask<ComputedDigests> ComputeAsync(IResumableUploadStore store, string id, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(store);
        using var digests = new StreamingDigests(algorithms);
        var buffer = System.Buffers.ArrayPool<byte>.Shared.Rent(1024 * 1024);
        try
        {
            int read;
            for (long offset = 0; (read = await store.ReadAsync(id, offset, buffer, cancellationToken)) > 0; offset += read)
            {
                digests.Append(buffer.AsSpan(0, read));
            }
        }
        finally
        {
            System.Buffers.ArrayPool<byte>.Shared.Return(buffer);
        }

        return digests.Complete();
    }

    /// <inheritdoc />
    public void Dispose()
    {
        foreach (var id in _running.Keys)
        {
            Forget(id);
        }
    }
}
