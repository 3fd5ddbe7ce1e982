using Freight.Storage;

namespace Freight.Telemetry;

/// <summary>
/// An <see cref="IObjectStore"/> whose calls (and its writers' commits) are timed and traced
/// (<see cref="StoreOperation"/>); bytes pass straight through to the store's own writer.
/// </summary>
internal sealed class InstrumentedObjectStore : IObjectStore
{
    private readonly IObjectStore _store;
    private readonly KeyValuePair<string, object?> _kind;

    private InstrumentedObjectStore(IObjectStore store)
    {
        _store = store;
        _kind = StoreOperation.KindOf(store, "ObjectStore");
    }

    /// <summary><paramref name="store"/>, instrumented (once: an instrumented store is returned as it is).</summary>
    public static IObjectStore Instrument(IObjectStore store) =>
        store as InstrumentedObjectStore ?? new InstrumentedObjectStore(store ?? throw new ArgumentNullException(nameof(store)));

    public async ValueTask<IObjectWriter> BeginWriteAsync(string key, long? expectedLength = null, CancellationToken cancellationToken = default)
    {
        var operation = StoreOperation.Start(_kind, StoreOperation.BeginWrite, key);
        try
        {
            var writer = await _store.BeginWriteAsync(key, expectedLength, cancellationToken);
            operation.Succeeded();
            return new Writer(writer, _kind);
        }
        catch (Exception failure)
        {
            operation.Failed(failure);
            throw;
        }
    }

    public async ValueTask<ObjectInfo?> GetInfoAsync(string key, CancellationToken cancellationToken = default)
    {
        var operation = StoreOperation.Start(_kind, StoreOperation.Info, key);
        try
        {
            var info = await _store.GetInfoAsync(key, cancellationToken);
            operation.Succeeded();
            return info;
        }
        catch (Exception failure)
        {
            operation.Failed(failure);
            throw;
        }
    }

    public async ValueTask<IObjectReader?> OpenReadAsync(string key, CancellationToken cancellationToken = default)
    {
        var operation = StoreOperation.Start(_kind, StoreOperation.Open, key);
        try
        {
            var reader = await _store.OpenReadAsync(key, cancellationToken);
            operation.Succeeded();
            return reader;
        }
        catch (Exception failure)
        {
            operation.Failed(failure);
            throw;
        }
    }

    public async ValueTask<bool> DeleteAsync(string key, WriteCondition? condition = null, CancellationToken cancellationToken = default)
    {
        var operation = StoreOperation.Start(_kind, StoreOperation.Delete, key);
        try
        {
            var deleted = await _store.DeleteAsync(key, condition, cancellationToken);
            operation.Succeeded();
            return deleted;
        }
        catch (Exception failure)
        {
            operation.Failed(failure);
            throw;
        }
    }

    public async ValueTask<ObjectPage> ListAsync(string prefix, int limit, string? cursor = null, CancellationToken cancellationToken = default)
    {
        var operation = StoreOperation.Start(_kind, StoreOperation.List, prefix);
        try
        {
            var page = await _store.ListAsync(prefix, limit, cursor, cancellationToken);
            operation.Succeeded();
            return page;
        }
        catch (Exception failure)
        {
            operation.Failed(failure);
            throw;
        }
    }

    public async ValueTask AddDigestsAsync(string key, string etag, IReadOnlyDictionary<string, byte[]> digests, CancellationToken cancellationToken = default)
    {
        var operation = StoreOperation.Start(_kind, StoreOperation.AddDigests, key);
        try
        {
            await _store.AddDigestsAsync(key, etag, digests, cancellationToken);
            operation.Succeeded();
        }
        catch (Exception failure)
        {
            operation.Failed(failure);
            throw;
        }
    }

    /// <summary>The store's writer with its commit timed; writes go straight through (no await added per chunk).</summary>
    private sealed class Writer(IObjectWriter writer, KeyValuePair<string, object?> kind) : IObjectWriter
    {
        public string Key => writer.Key;

        public long Length => writer.Length;

        public ValueTask WriteAsync(System.Buffers.ReadOnlySequence<byte> data, CancellationToken cancellationToken = default) => writer.WriteAsync(data, cancellationToken);

        public ValueTask WriteAsync(ReadOnlyMemory<byte> data, CancellationToken cancellationToken = default) => writer.WriteAsync(data, cancellationToken);

        public async ValueTask<ObjectInfo> CommitAsync(ObjectCommit commit, CancellationToken cancellationToken = default)
        {
            var operation = StoreOperation.Start(kind, StoreOperation.Commit, writer.Key, writer.Length);
            try
            {
                var info = await writer.CommitAsync(commit, cancellationToken);
                operation.Succeeded();
                return info;
            }
            catch (Exception failure)
            {
                operation.Failed(failure);
                throw;
            }
        }

        public ValueTask DisposeAsync() => writer.DisposeAsync();
    }
}
