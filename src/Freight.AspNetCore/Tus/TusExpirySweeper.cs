using Freight.Resumable;
using Freight.Storage;
using Freight.Telemetry;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace Freight.AspNetCore.Tus;

/// <summary>
/// The expiration extension's other half: every <see cref="TusOptions.SweepInterval"/>, removes unfinished
/// uploads whose Upload-Expires has passed (record and bytes) and the records of uploads finished longer ago
/// than <see cref="TusOptions.ExpireAfter"/> (their files stay). An upload a request is writing is left for
/// the next sweep. At start, first finishes what a crash interrupted (file-system store). With a store that can leave
/// leftovers (<see cref="IAbandonedUploadSweeper"/>: the S3 store), also removes multipart uploads and staged writes that stopped nodes left in the bucket for longer than ExpireAfter.
/// Each sweep's listing is also what <see cref="TusQuota"/> counts from.
/// </summary>
internal sealed class TusExpirySweeper(
    IResumableUploadStore store,
    TusUploads uploads,
    TusQuota quota,
    TusOptions options,
    TimeProvider time,
    IEnumerable<IStoreFailureClassifier> storeFailures,
    ILogger<TusExpirySweeper> logger) : BackgroundService
{
    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        if (store is FileSystemResumableUploadStore files)
        {
            var finished = await files.RecoverAsync(stoppingToken);
            if (finished > 0)
            {
                TusLog.Recovered(logger, finished);
            }
        }

        using var timer = new PeriodicTimer(options.SweepInterval, time);
        do
        {
            try
            {
                await SweepAsync(stoppingToken);
            }
            catch (Exception failed) when (failed is IOException or UnauthorizedAccessException || storeFailures.Any(classifier => classifier.Classify(failed) is not StoreFailure.None))
            {
                // A disk or bucket problem now is no reason to stop sweeping later.
                TusLog.SweepFailed(logger, failed.Message);
                quota.CountingFailed();
            }
        }
        while (await timer.WaitForNextTickAsync(stoppingToken));
    }

    /// <summary>One sweep; returns how many uploads it removed.</summary>
    public async Task<int> SweepAsync(CancellationToken cancellationToken)
    {
        var removed = 0;
        var now = time.GetUtcNow();
        // The listing the sweep makes anyway is the quota's count of what the store holds.
        var since = quota.BeginListing();
        var listed = new List<ResumableUpload>();
        await foreach (var upload in store.ListAsync(cancellationToken))
        {
            listed.Add(upload);
            if (uploads.IsExpired(upload, now) && !uploads.IsBusy(upload.Id))
            {
                await uploads.RemoveAsync(upload, cancellationToken);
                removed++;
                if (upload.Completion is null)
                {
                    TusLog.Expired(logger, upload.Id, upload.Offset);
                }
            }
        }

        quota.Reconcile(listed, since);
        if (store is IAbandonedUploadSweeper bucket && await bucket.SweepAbandonedAsync(options.ExpireAfter, cancellationToken) is > 0 and var abandoned)
        {
            TusLog.Abandoned(logger, abandoned);
        }

        return removed;
    }
}
