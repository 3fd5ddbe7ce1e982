namespace Freight.Storage;

/// <summary>
/// Serializes the moment a write or delete takes effect per key, so a condition checked and the change it
/// guards cannot interleave with another request's (striped: keys share 64 locks, held only for a rename).
/// </summary>
internal sealed class KeyLocks
{
    private readonly SemaphoreSlim[] _locks = Enumerable.Range(0, 64).Select(_ => new SemaphoreSlim(1, 1)).ToArray();

    public async ValueTask<Releaser> AcquireAsync(string key, CancellationToken cancellationToken)
    {
        var gate = _locks[(StringComparer.Ordinal.GetHashCode(key) & int.MaxValue) % _locks.Length];
        await gate.WaitAsync(cancellationToken);
        return new Releaser(gate);
    }

    public readonly struct Releaser(SemaphoreSlim gate) : IDisposable
    {
        public void Dispose() => gate.Release();
    }
}
