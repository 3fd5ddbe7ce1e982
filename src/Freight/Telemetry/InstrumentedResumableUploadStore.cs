using Freight.Resumable;
using Freight.Storage;

namespace Freight.Telemetry;

/// <summary>
/// An <see cref="IResumableUploadStore"/> whose record and completion calls are timed and traced
/// (<see cref="StoreOperation"/>). Appends' bytes, reads of stored bytes (per buffer) and the sweep's listing
/// pass straight through: nothing is added per chunk.
/// </summary>
internal sealed class InstrumentedResumableUploadStore : IResumableUploadStore
{
    private readonly IResumableUploadStore _store;
    private readonly KeyValuePair<string, object?> _kind;

    private InstrumentedResumableUploadStore(IResumableUploadStore store)
    {
        _store = store;
        _kind = StoreOperation.KindOf(store, "ResumableUploadStore");
    }

    /// <summary><paramref name="store"/>, instrumented (once: an instrumented store is returned as it is).</summary>
    public static IResumableUploadStore Instrument(IResumableUploadStore store) =>
        store as InstrumentedResumableUploadStore ?? new InstrumentedResumableUploadStore(store ?? throw new ArgumentNullException(nameof(store)));

    public async ValueTask CreateAsync(ResumableUpload upload, CancellationToken cancellationToken = default)
    {
        var operation = StoreOperation.Start(_kind, StoreOperation.CreateUpload, upload.Id);
        try
        {
            await _store.CreateAsync(upload, cancellationToken);
            operation.Succeeded();
        }
        catch (Exception failure)
        {
            operation.Failed(failure);
            throw;
        }
    }

    public async ValueTask<ResumableUpload?> GetAsync(string id, CancellationToken cancellationToken = default)
    {
        var operation = StoreOperation.Start(_kind, StoreOperation.GetUpload, id);
        try
        {
            var upload = await _store.GetAsync(id, cancellationToken);
            operation.Succeeded();
            return upload;
        }
        catch (Exception failure)
        {
            operation.Failed(failure);
            throw;
        }
    }

    public async ValueTask UpdateAsync(ResumableUpload upload, CancellationToken cancellationToken = default)
    {
        var operation = StoreOperation.Start(_kind, StoreOperation.UpdateUpload, upload.Id);
        try
        {
            await _store.UpdateAsync(upload, cancellationToken);
            operation.Succeeded();
        }
        catch (Exception failure)
        {
            operation.Failed(failure);
            throw;
        }
    }

    public async ValueTask<IResumableUploadAppender> BeginAppendAsync(string id, long offset, CancellationToken cancellationToken = default)
    {
        var operation = StoreOperation.Start(_kind, StoreOperation.Append, id);
        try
        {
            var appender = await _store.BeginAppendAsync(id, offset, cancellationToken);
            operation.Succeeded();
            return appender;
        }
        catch (Exception failure)
        {
            operation.Failed(failure);
            throw;
        }
    }

    public ValueTask<int> ReadAsync(string id, long offset, Memory<byte> destination, CancellationToken cancellationToken = default) =>
        _store.ReadAsync(id, offset, destination, cancellationToken);

    public async ValueTask<ObjectInfo> CompleteAsync(ResumableUpload upload, string key, ObjectCommit commit, CancellationToken cancellationToken = default)
    {
        var operation = StoreOperation.Start(_kind, StoreOperation.CompleteUpload, key, upload.Length);
        try
        {
            var info = await _store.CompleteAsync(upload, key, commit, cancellationToken);
            operation.Succeeded();
            return info;
        }
        catch (Exception failure)
        {
            operation.Failed(failure);
            throw;
        }
    }

    public async ValueTask<bool> DeleteAsync(string id, CancellationToken cancellationToken = default)
    {
        var operation = StoreOperation.Start(_kind, StoreOperation.DeleteUpload, id);
        try
        {
            var deleted = await _store.DeleteAsync(id, cancellationToken);
            operation.Succeeded();
            return deleted;
        }
        catch (Exception failure)
        {
            operation.Failed(failure);
            throw;
        }
    }

    public IAsyncEnumerable<ResumableUpload> ListAsync(CancellationToken cancellationToken = default) => _store.ListAsync(cancellationToken);

    public long? AvailableBytes() => _store.AvailableBytes();
}
