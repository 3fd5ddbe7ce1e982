using System.Buffers;
using System.Diagnostics;
using System.IO.Hashing;
using System.Net;
using System.Net.Http.Headers;
using System.Net.Http.Json;
using Freight.Bench.Load;
using Freight.Bench.Measure;
using Freight.Bench.Peers;
using Freight.Bench.Progress;
using Freight.Bench.Reports;
using Freight.Bench.Results;
using Freight.Bench.Suites.Transfer;
using Freight.Hashing;
using Freight.Lab.Payload;
using Freight.Storage;

namespace Freight.Bench.Suites.Files;

/// <summary>
/// Runs <c>--suite files</c>: PUT and GET of each payload through the files API, nginx (WebDAV PUT, sendfile
/// GET) and the lab's raw paths, interleaved, every transfer verified: uploads by the stored bytes' hash
/// (the API's ETag is the content's XXH3-128; nginx's stored file and the lab's answer are hashed), downloads
/// by hashing the body as it arrives. With <c>--store s3</c> the embedded server keeps its files in
/// <paramref name="rgw"/> (BenchRunner started both), and the peer is the same client talking to that RGW directly
/// (<see cref="S3Direct"/>); <paramref name="rgwUnavailable"/> says why there is no RGW, and every row then fails with it.
/// </summary>
public sealed class FilesSuiteRunner(
    BenchOptions options,
    IBenchProgress progress,
    ServerUnderTest server,
    HttpClient client,
    string workDirectory,
    Action<int>? pinProcess = null,
    RgwServer? rgw = null,
    string? rgwUnavailable = null)
{
    /// <summary>The bucket the embedded server's S3 store keeps its files in (BenchRunner creates it).</summary>
    public const string StoreBucket = "freight-files";

    /// <summary>The bucket of peer/s3-direct's objects: apart from the store's, whose layout is the store's own.</summary>
    public const string DirectBucket = "s3-direct";

    /// <summary>Client read and request-body buffer: 1 MiB, so the client spends few calls per GiB on either side of the wire.</summary>
    private const int ClientBufferBytes = 1024 * 1024;

    /// <summary>
    /// On S3, overwritten objects' bytes wait for RGW's garbage collector (see <see cref="RgwServer.CollectGarbageAsync"/>);
    /// it is run, untimed, before an upload once this much has been overwritten since the last run: before every
    /// 1 GiB upload, every ~13 uploads of 20 MiB (~0.25 s each time). Keeps memstore's RAM (~2.4× the bytes it
    /// holds) near the live objects' size.
    /// </summary>
    private const long GarbageCollectionBytes = 256L << 20;

    private long _uncollectedBytes;

    private bool OnS3 => options.Store == FilesSuite.S3Store;

    public async Task<(List<ScenarioResult> Results, List<RatioResult> Ratios, bool Verified, SuiteCheck? Check)> RunAsync(CancellationToken cancellationToken)
    {
        var sizes = FilesSuite.Sizes(options.Quick, options.Store, options.Full);
        var scenarios = FilesSuite.Create(options.Quick, options.Store, options.Full)
            .Where(s => options.Matches(s.Id))
            .ToList();
        if (scenarios.Count == 0 || server.Target.Http is null)
        {
            return ([], [], true, null);
        }

        if (OnS3)
        {
            return await RunOnS3Async(scenarios, sizes, cancellationToken);
        }

        var payloads = sizes.ToDictionary(size => size, size => DeterministicPayload.Create(size));
        var hashes = payloads.ToDictionary(pair => pair.Key, pair => XxHash128.HashToUInt128(pair.Value));
        await using var nginx = await StartNginxAsync(scenarios, payloads, cancellationToken);
        scenarios = scenarios.Where(s => !s.IsPeer || nginx is not null).ToList();
        var sourceFiles = WriteSourceFiles(scenarios);
        progress.SuiteStarted(
            FilesSuite.Name,
            $"files suite: {CountText.Format(scenarios.Count, "scenario")} × {CountText.Format(options.Runs, "run")} of ≥{options.RunSeconds:0.##} s; nginx {(nginx is null ? "not installed (scripts/install-peers.sh)" : nginx.Version)}",
            InterleavedRuns.PlannedSeconds(scenarios.Count, options));

        // What the GET rows read: a file stored through the API itself.
        foreach (var (size, bytes) in payloads)
        {
            await PutAsync(ApiUri($"bench/get-{size}.bin"), bytes, hashes[size], cancellationToken);
        }

        var measured = await InterleavedRuns.RunAsync(
            scenarios,
            options,
            progress,
            s => (s.RowId, s.Describe()),
            (scenario, seconds) => MeasureAsync(scenario, seconds, new Payload(payloads[scenario.PayloadBytes], sourceFiles.GetValueOrDefault(scenario.PayloadBytes)), hashes[scenario.PayloadBytes], nginx, null, null, cancellationToken),
            goals: (samplesSoFar, level) =>
            {
                var rows = scenarios.Select(s => Summarize(s, samplesSoFar[s], null, rgw?.Version)).ToList();
                return GoalCheck<FilesScenario>.Of(scenarios, rows, FilesRatios.Compute(rows, sizes[^1]), level);
            });
        var (samples, failures) = measured;

        var results = scenarios.Select(s => Summarize(s, samples[s], failures.GetValueOrDefault(s), rgw?.Version)).ToList();
        foreach (var row in results)
        {
            progress.RowFinished(row);
        }

        progress.SuiteFinished();
        var ratios = FilesRatios.Compute(results, sizes[^1]).Select(r => r.WithStop(measured.Stop, measured.RunsAdded)).ToList();
        return (results, ratios, failures.Count == 0, SuiteCheck.Of(FilesSuite.Name, ratios, measured.Stop, measured.Passes, options.MaxSeconds));
    }

    /// <summary>The files API's key of one payload size on S3: the PUT rows overwrite it, the GET rows read it.</summary>
    private static string S3ApiKey(long size) => $"bench/s3-{size}.bin";

    /// <summary>peer/s3-direct's key of one payload size in <see cref="DirectBucket"/>, used the same way.</summary>
    private static string S3DirectKey(long size) => $"bench-{size}.bin";

    private async Task<(List<ScenarioResult> Results, List<RatioResult> Ratios, bool Verified, SuiteCheck? Check)> RunOnS3Async(List<FilesScenario> scenarios, IReadOnlyList<long> sizes, CancellationToken cancellationToken)
    {
        if (rgw is null)
        {
            // Without the S3 server there is nothing to measure: every row fails with why, and the bench exits 1.
            var reason = $"RGW (the S3 server) is not available: {rgwUnavailable ?? "not started"}";
            progress.SuiteStarted(FilesSuite.Name, $"files suite on S3: {reason}", 0);
            var failed = scenarios.Select(s => Summarize(s, [], reason, null)).ToList();
            foreach (var row in failed)
            {
                progress.RowFinished(row);
            }

            progress.SuiteFinished();
            return (failed, FilesRatios.ComputeS3(failed, sizes[^1]).ToList(), false, null);
        }

        var payloads = sizes.ToDictionary(size => size, size => DeterministicPayload.Create(size));
        var hashes = payloads.ToDictionary(pair => pair.Key, pair => XxHash128.HashToUInt128(pair.Value));
        var etags = payloads.ToDictionary(pair => pair.Key, pair => S3Direct.ETagOf(pair.Value));
        var direct = new S3Direct(rgw, DirectBucket, client);
        await direct.CreateBucketAsync(cancellationToken);
        progress.SuiteStarted(
            FilesSuite.Name,
            $"files suite on S3: {CountText.Format(scenarios.Count, "scenario")} × {CountText.Format(options.Runs, "run")} of ≥{options.RunSeconds:0.##} s; RGW {rgw.Version} (memstore) at {rgw.Endpoint}",
            InterleavedRuns.PlannedSeconds(scenarios.Count, options));

        // What the GET rows read (and the PUT rows overwrite): an object stored through the API, and one stored
        // directly. The API's is then found in the store's bucket and read back from RGW: a server that kept it
        // anywhere else (its store not S3 after all) would be measured as something it is not.
        var notOnS3 = new Dictionary<FilesScenario, string>();
        foreach (var (size, bytes) in payloads)
        {
            var apiRows = scenarios.Where(s => !s.IsPeer && s.PayloadBytes == size).ToList();
            if (apiRows.Count > 0)
            {
                try
                {
                    await PutAsync(ApiUri(S3ApiKey(size)), bytes, hashes[size], cancellationToken);
                    await VerifyInStoreBucketAsync(size, hashes[size], cancellationToken);
                }
                catch (Exception failure) when (failure is VerificationException or HttpRequestException or IOException or Amazon.Runtime.AmazonServiceException)
                {
                    apiRows.ForEach(s => notOnS3[s] = failure.Message);
                }
            }

            if (scenarios.Any(s => s.Id == FilesSuite.S3DirectGet && s.PayloadBytes == size))
            {
                await direct.PutAsync(S3DirectKey(size), bytes, etags[size], cancellationToken);
            }
        }

        var measurable = scenarios.Where(s => !notOnS3.ContainsKey(s)).ToList();
        var measured = await InterleavedRuns.RunAsync(
            measurable,
            options,
            progress,
            s => (s.RowId, s.Describe()),
            (scenario, seconds) => MeasureAsync(scenario, seconds, new Payload(payloads[scenario.PayloadBytes], null), hashes[scenario.PayloadBytes], null, direct, etags[scenario.PayloadBytes], cancellationToken),
            goals: (samplesSoFar, level) =>
            {
                var rows = measurable.Select(s => Summarize(s, samplesSoFar[s], null, rgw?.Version)).ToList();
                return GoalCheck<FilesScenario>.Of(measurable, rows, FilesRatios.ComputeS3(rows, sizes[^1]), level);
            });
        var (samples, failures) = measured;
        foreach (var (scenario, reason) in notOnS3)
        {
            failures[scenario] = reason;
        }

        await DeleteS3ObjectsAsync(direct, sizes, cancellationToken);
        var results = scenarios.Select(s => Summarize(s, samples.GetValueOrDefault(s) ?? [], failures.GetValueOrDefault(s), rgw?.Version)).ToList();
        foreach (var row in results)
        {
            progress.RowFinished(row);
        }

        progress.SuiteFinished();
        var ratios = FilesRatios.ComputeS3(results, sizes[^1]).Select(r => r.WithStop(measured.Stop, measured.RunsAdded)).ToList();
        return (results, ratios, failures.Count == 0, SuiteCheck.Of(FilesSuite.Name, ratios, measured.Stop, measured.Passes, options.MaxSeconds));
    }

    /// <summary>
    /// Checks that the API's object of <paramref name="size"/> bytes is in <see cref="StoreBucket"/>: an object of that
    /// size there (its key ending with the API's key first; the store's layout is its own) whose bytes, read back from
    /// RGW directly, are the payload's.
    /// </summary>
    private async Task VerifyInStoreBucketAsync(long size, UInt128 hash, CancellationToken cancellationToken)
    {
        var key = S3ApiKey(size);
        var objects = await rgw!.ListObjectsAsync(StoreBucket, cancellationToken);
        var stored = objects.Where(o => o.Size == size).OrderByDescending(o => o.Key.EndsWith(key, StringComparison.Ordinal)).Select(o => o.Key).FirstOrDefault()
            ?? throw new VerificationException(
                $"PUT /files/{key} answered, but bucket {StoreBucket} on RGW holds no {size}-byte object ({CountText.Format(objects.Count, "object")}): the embedded server did not store it in S3 (is Freight:Files:Store S3 in effect?).");
        await GetVerifiedAsync(client, rgw.Presign(Amazon.S3.HttpVerb.GET, StoreBucket, stored), size, hash, $"s3://{StoreBucket}/{stored} (stored by PUT /files/{key})", cancellationToken);
    }

    /// <summary>
    /// Deletes what the suite stored (memstore holds it in RAM) and frees it at once. A failure here is said, not
    /// fatal: every figure is verified already, and stopping RGW frees everything anyway.
    /// </summary>
    private async Task DeleteS3ObjectsAsync(S3Direct direct, IReadOnlyList<long> sizes, CancellationToken cancellationToken)
    {
        try
        {
            foreach (var size in sizes)
            {
                using (var request = new HttpRequestMessage(HttpMethod.Delete, ApiUri(S3ApiKey(size))))
                using (var response = await client.SendAsync(request, cancellationToken))
                {
                    if (!response.IsSuccessStatusCode && response.StatusCode != HttpStatusCode.NotFound)
                    {
                        progress.Line($"files suite: DELETE {request.RequestUri} answered {(int)response.StatusCode}; RGW's stop frees it");
                    }
                }

                await direct.DeleteAsync(S3DirectKey(size), cancellationToken);
            }

            await rgw!.CollectGarbageAsync(cancellationToken);
        }
        catch (Exception failure) when (failure is HttpRequestException or Amazon.Runtime.AmazonServiceException or InvalidOperationException)
        {
            progress.Line($"files suite: could not delete the stored objects ({failure.Message}); RGW's stop frees them");
        }
    }

    private Uri ApiUri(string key) => new(server.Target.Http!, "/files/" + key);

    private async Task<NginxServer?> StartNginxAsync(List<FilesScenario> scenarios, Dictionary<long, byte[]> payloads, CancellationToken cancellationToken)
    {
        if (!scenarios.Any(s => s.IsPeer))
        {
            return null;
        }

        var root = Path.Combine(workDirectory, "nginx-files");
        foreach (var size in payloads.Keys)
        {
            DeterministicPayload.WriteFile(Path.Combine(root, $"payload-{size}.bin"), size);
        }

        var nginx = await Nginx.StartAsync(
            new NginxSiteOptions { RootDirectory = root, WorkDirectory = Path.Combine(workDirectory, "nginx-files-work"), EnableWebDavPut = true },
            cancellationToken);
        if (nginx is not null)
        {
            pinProcess?.Invoke(nginx.ProcessId);
        }

        return nginx;
    }

    /// <summary>The files the sendfile rows send, one per payload size they use: the payload's bytes, written once.</summary>
    private Dictionary<long, string> WriteSourceFiles(List<FilesScenario> scenarios)
    {
        var files = new Dictionary<long, string>();
        foreach (var size in scenarios.Where(s => s.SendsFile).Select(s => s.PayloadBytes).Distinct())
        {
            var path = Path.Combine(workDirectory, "files-sendfile", $"payload-{size}.bin");
            DeterministicPayload.WriteFile(path, size);
            files[size] = path;
        }

        return files;
    }

    private async Task<RunSample> MeasureAsync(FilesScenario scenario, double seconds, Payload payload, UInt128 hash, NginxServer? nginx, S3Direct? direct, string? etag, CancellationToken cancellationToken)
    {
        // Instructions are Freight's own: not on a peer's rows, nor on S3, where the rows' server cost includes RGW's.
        var perf = scenario.IsPeer || OnS3 || server.Instructions is null ? null : await server.Instructions.StartAsync(cancellationToken);
        var serverBefore = scenario.IsPeer ? null : await server.Metrics.CaptureAsync(cancellationToken);
        var peerBefore = scenario.IsPeer && nginx is not null ? ProcessStatSnapshot.Capture(nginx.ProcessId) : null;
        var s3Before = rgw?.CaptureDataPath();
        var cpuBefore = Environment.CpuUsage.TotalTime;
        var allocatedBefore = GC.GetTotalAllocatedBytes();
        var live = progress.Live;
        long bytes = 0;
        var count = 0;
        double busy = 0;
        var firstBytes = new List<double>();
        var clock = Stopwatch.StartNew();
        do
        {
            var (elapsed, firstByte) = await TransferAsync(scenario, payload, hash, nginx, direct, etag, cancellationToken);
            bytes += payload.Bytes.LongLength;
            busy += elapsed;
            count++;
            live.AddVerified(payload.Bytes.LongLength);
            if (firstByte is { } first)
            {
                firstBytes.Add(first);
            }
        }
        while (clock.Elapsed.TotalSeconds < seconds);

        var cpu = (Environment.CpuUsage.TotalTime - cpuBefore).TotalSeconds;
        var allocated = GC.GetTotalAllocatedBytes() - allocatedBefore;
        var serverAfter = scenario.IsPeer ? null : await server.Metrics.CaptureAsync(cancellationToken);
        var instructions = perf is null ? null : (await perf.StopAsync()).Instructions;
        var s3After = rgw?.CaptureDataPath();
        double? storeCpu = null;
        if (scenario.IsPeer && peerBefore is not null && ProcessStatSnapshot.Capture(nginx!.ProcessId) is { } peerAfter)
        {
            // The peer's CPU in the same shape as our server's snapshots: only CPU seconds are known.
            serverBefore = PeerSnapshot(peerBefore.CpuSeconds, peerBefore.WorkingSetBytes);
            serverAfter = PeerSnapshot(peerAfter.CpuSeconds, peerAfter.WorkingSetBytes);
        }
        else if (s3Before is { } before && s3After is { } after)
        {
            // On S3 the server side is the S3 server's data path (radosgw and ceph-osd), plus Freight for the API's
            // rows: CPU per GiB then compares what storing a GiB costs the machine either way. The S3 server's
            // share is kept apart too, so Freight's own cost is the difference.
            storeCpu = after.CpuSeconds - before.CpuSeconds;
            if (scenario.IsS3Direct)
            {
                serverBefore = PeerSnapshot(before.CpuSeconds, before.WorkingSetBytes);
                serverAfter = PeerSnapshot(after.CpuSeconds, after.WorkingSetBytes);
            }
            else if (serverBefore is not null && serverAfter is not null)
            {
                serverBefore = serverBefore with { CpuSeconds = serverBefore.CpuSeconds + before.CpuSeconds };
                serverAfter = serverAfter with { CpuSeconds = serverAfter.CpuSeconds + after.CpuSeconds };
            }
        }

        return new RunSample(bytes, count, busy, Summary.Of(firstBytes)?.Median, cpu, allocated, serverBefore, serverAfter, storeCpu, instructions);
    }

    private static Freight.Lab.Metrics.RuntimeSnapshot PeerSnapshot(double cpuSeconds, long workingSetBytes) =>
        ServerMetrics.PeerSnapshot(cpuSeconds, workingSetBytes);

    /// <summary>
    /// One verified transfer; the seconds cover the request only, not the verification after it. An upload to disk
    /// is removed again right after it is verified, by its own server (<see cref="RemoveUploadAsync"/>).
    /// </summary>
    private async Task<(double Seconds, double? FirstByte)> TransferAsync(FilesScenario scenario, Payload payload, UInt128 hash, NginxServer? nginx, S3Direct? direct, string? etag, CancellationToken cancellationToken)
    {
        if (scenario.IsUpload && OnS3)
        {
            // Memory, not disk: no sync; the same key is overwritten, and what that leaves for RGW's collector freed.
            await CollectGarbageIfDueAsync(cancellationToken);
            _uncollectedBytes += scenario.PayloadBytes;
        }
        else if (scenario.IsUpload)
        {
            await SyncAsync(cancellationToken);
            var upload = await TransferOnceAsync(scenario, payload, hash, nginx, direct, etag, cancellationToken);
            await RemoveUploadAsync(scenario, nginx, cancellationToken);
            return upload;
        }

        return await TransferOnceAsync(scenario, payload, hash, nginx, direct, etag, cancellationToken);
    }

    private async Task<(double Seconds, double? FirstByte)> TransferOnceAsync(FilesScenario scenario, Payload source, UInt128 hash, NginxServer? nginx, S3Direct? direct, string? etag, CancellationToken cancellationToken)
    {
        var size = scenario.PayloadBytes;
        var payload = source.Bytes;
        switch (scenario.Id)
        {
            case FilesSuite.Put when OnS3:
                return (await PutAsync(ApiUri(S3ApiKey(size)), payload, hash, cancellationToken), null);

            case FilesSuite.Get when OnS3:
                return await GetAsync(ApiUri(S3ApiKey(size)), payload.LongLength, hash, scenario, cancellationToken);

            case FilesSuite.S3DirectPut:
                return (await direct!.PutAsync(S3DirectKey(size), payload, etag!, cancellationToken), null);

            case FilesSuite.S3DirectGet:
                return await direct!.GetAsync(S3DirectKey(size), payload.LongLength, hash, cancellationToken);

            case FilesSuite.Put:
                return (await PutAsync(ApiUri($"bench/put-{size}.bin"), payload, hash, cancellationToken), null);

            case FilesSuite.NginxPut:
            {
                var seconds = await SendAsync(HttpMethod.Put, new Uri(nginx!.DavAddress!, $"put-{size}.bin"), payload, cancellationToken);
                await VerifyStoredFileAsync(Path.Combine(nginx.PutDirectory!, $"put-{size}.bin"), hash, scenario, cancellationToken);
                return (seconds, null);
            }

            case FilesSuite.PutSendFile:
            {
                var uri = ApiUri($"bench/put-{size}.bin");
                var answer = await SendFilePut.PutAsync(uri, source.File!, size, cancellationToken);
                var expected = FileSystemObjectStore.FormatETag(hash);
                if (answer.StatusCode is < 200 or > 299 || answer.ETag != expected)
                {
                    throw new VerificationException($"{scenario.Id} ({scenario.Describe()}): {answer.StatusCode}, ETag {answer.ETag} but the payload's is {expected}.");
                }

                return (answer.Seconds, null);
            }

            case FilesSuite.NginxPutSendFile:
            {
                var answer = await SendFilePut.PutAsync(new Uri(nginx!.DavAddress!, $"put-{size}.bin"), source.File!, size, cancellationToken);
                if (answer.StatusCode is < 200 or > 299)
                {
                    throw new VerificationException($"{scenario.Id} ({scenario.Describe()}): nginx answered {answer.StatusCode}.");
                }

                await VerifyStoredFileAsync(Path.Combine(nginx.PutDirectory!, $"put-{size}.bin"), hash, scenario, cancellationToken);
                return (answer.Seconds, null);
            }

            case FilesSuite.LabUpload:
            {
                var uri = new Uri(server.Target.Http!, "/lab/upload/freight?sink=file");
                using var request = new HttpRequestMessage(HttpMethod.Post, uri) { Content = Body(payload) };
                var clock = Stopwatch.StartNew();
                using var response = await client.SendAsync(request, cancellationToken);
                var seconds = clock.Elapsed.TotalSeconds;
                await TransferClient.EnsureSuccessAsync(response, cancellationToken);
                var answer = await response.Content.ReadFromJsonAsync<LabAnswer>(cancellationToken);
                if (answer is null || answer.Bytes != payload.LongLength || answer.Hash != HashHex.ToHex(hash))
                {
                    throw new VerificationException($"{scenario.Id} ({scenario.Describe()}): the lab stored other bytes than sent.");
                }

                return (seconds, null);
            }

            case FilesSuite.Get:
                return await GetAsync(ApiUri($"bench/get-{size}.bin"), payload.LongLength, hash, scenario, cancellationToken);

            case FilesSuite.NginxGet:
                return await GetAsync(new Uri(nginx!.BaseAddress, $"payload-{size}.bin"), payload.LongLength, hash, scenario, cancellationToken);

            case FilesSuite.LabDownload:
                return await GetAsync(new Uri(server.Target.Http!, $"/lab/download/freight?size={size}"), payload.LongLength, hash, scenario, cancellationToken);

            default:
                throw new ArgumentException($"Unknown files scenario {scenario.Id}.", nameof(scenario));
        }
    }

    /// <summary>Runs RGW's garbage collector, untimed, once <see cref="GarbageCollectionBytes"/> have been overwritten since it last ran.</summary>
    private async Task CollectGarbageIfDueAsync(CancellationToken cancellationToken)
    {
        if (_uncollectedBytes < GarbageCollectionBytes)
        {
            return;
        }

        try
        {
            await rgw!.CollectGarbageAsync(cancellationToken);
        }
        catch (InvalidOperationException failure)
        {
            // Fails the row (InterleavedRuns takes IOException): a full memstore would fail the uploads after it anyway.
            throw new IOException(failure.Message, failure);
        }

        _uncollectedBytes = 0;
    }

    /// <summary>
    /// Every upload writes a new file and removes it right after it is verified, untimed (outside the request's
    /// seconds). Each server removes its own file (Freight by the files API's DELETE, nginx by WebDAV DELETE): the
    /// removal falls inside the row's server CPU window, so both pay it (until 2026-11-27 the bench unlinked nginx's
    /// file itself and charged ~0.09 s/GiB to Freight's side only). Removing it at once, before writeback, rather
    /// than before the row's next upload: (1) the next upload — whichever row it is — writes into the page-cache
    /// frames this one just freed, the condition docs/results/2026-11-27-put-cost.md measured both servers under
    /// (frames the guest has not touched lately cost the same copy up to twice the CPU); (2) the pages are dropped
    /// dirty, so the <see cref="SyncAsync"/> before each upload has next to nothing to write back and no freed
    /// blocks are discarded (ext4 `discard` here): a files pass took 13 s, of which ~7 s was writing back the
    /// other rows' 1 GiB uploads.
    /// </summary>
    private async Task RemoveUploadAsync(FilesScenario scenario, NginxServer? nginx, CancellationToken cancellationToken)
    {
        var size = scenario.PayloadBytes;
        switch (scenario.Id)
        {
            case FilesSuite.Put or FilesSuite.PutSendFile:
                using (var request = new HttpRequestMessage(HttpMethod.Delete, ApiUri($"bench/put-{size}.bin")))
                using (var response = await client.SendAsync(request, cancellationToken))
                {
                    if (!response.IsSuccessStatusCode && response.StatusCode != HttpStatusCode.NotFound)
                    {
                        throw new VerificationException($"DELETE {request.RequestUri}: {(int)response.StatusCode}");
                    }
                }

                break;
            case FilesSuite.NginxPut or FilesSuite.NginxPutSendFile:
                using (var request = new HttpRequestMessage(HttpMethod.Delete, new Uri(nginx!.DavAddress!, $"put-{size}.bin")))
                using (var response = await client.SendAsync(request, cancellationToken))
                {
                    if (!response.IsSuccessStatusCode && response.StatusCode != HttpStatusCode.NotFound)
                    {
                        throw new VerificationException($"DELETE {request.RequestUri}: {(int)response.StatusCode}");
                    }
                }

                break;
            case FilesSuite.LabUpload when options.Target is null:
                // The embedded server's data directory (BenchRunner names it); the lab stores every upload under one name.
                DeleteIfPresent(Path.Combine(workDirectory, TransferScenario.FreightServer + "-data", "lab", "uploads", "freight.bin"));
                break;
        }
    }

    /// <summary>
    /// Writes every dirty page back before an upload, untimed: each upload then starts from the same state.
    /// Without it the rows' 1 GiB writes piled up past the kernel's background writeback threshold (10% of
    /// RAM) and whichever upload came third in a round ran against the writeback of the first two
    /// (upload/freight 325 MiB/s at 3.1 s/GiB server CPU after nginx's PUT, 1.8 GiB/s when first).
    /// </summary>
    internal static async Task SyncAsync(CancellationToken cancellationToken)
    {
        if (!OperatingSystem.IsLinux())
        {
            return;
        }

        using var sync = Process.Start(new ProcessStartInfo("sync") { UseShellExecute = false });
        if (sync is not null)
        {
            await sync.WaitForExitAsync(cancellationToken);
        }
    }

    private static void DeleteIfPresent(string path)
    {
        try
        {
            File.Delete(path);
        }
        catch (DirectoryNotFoundException)
        {
            // Nothing uploaded there yet.
        }
    }

    /// <summary>PUT through the files API, verified by the answer's ETag: the stored bytes' XXH3-128.</summary>
    private Task<double> PutAsync(Uri uri, byte[] payload, UInt128 hash, CancellationToken cancellationToken) =>
        PutVerifiedAsync(client, uri, payload, FileSystemObjectStore.FormatETag(hash), $"PUT {uri}", cancellationToken);

    /// <summary>
    /// One timed PUT of <paramref name="payload"/> (the suite's request body: <see cref="Body"/>), verified by the
    /// answer's ETag being <paramref name="expectedETag"/>. The seconds cover the request, not the check.
    /// </summary>
    /// <param name="what">The request as failure messages name it.</param>
    internal static async Task<double> PutVerifiedAsync(HttpClient client, Uri uri, byte[] payload, string expectedETag, string what, CancellationToken cancellationToken)
    {
        using var request = new HttpRequestMessage(HttpMethod.Put, uri) { Content = Body(payload) };
        var clock = Stopwatch.StartNew();
        using var response = await client.SendAsync(request, cancellationToken);
        var seconds = clock.Elapsed.TotalSeconds;
        await TransferClient.EnsureSuccessAsync(response, cancellationToken);
        if (response.Headers.ETag?.ToString() != expectedETag)
        {
            throw new VerificationException($"{what}: ETag {response.Headers.ETag} but the payload's is {expectedETag}.");
        }

        return seconds;
    }

    private async Task<double> SendAsync(HttpMethod method, Uri uri, byte[] payload, CancellationToken cancellationToken)
    {
        using var request = new HttpRequestMessage(method, uri) { Content = Body(payload) };
        var clock = Stopwatch.StartNew();
        using var response = await client.SendAsync(request, cancellationToken);
        var seconds = clock.Elapsed.TotalSeconds;
        await TransferClient.EnsureSuccessAsync(response, cancellationToken);
        return seconds;
    }

    private Task<(double Seconds, double? FirstByte)> GetAsync(Uri uri, long length, UInt128 hash, FilesScenario scenario, CancellationToken cancellationToken) =>
        GetVerifiedAsync(client, uri, length, hash, $"{scenario.Id} ({scenario.Describe()})", cancellationToken);

    /// <summary>
    /// One timed GET, its body hashed (XXH3-128) as it arrives through a pooled 1 MiB buffer and compared with the
    /// payload's length and hash once it has all arrived. Returns the seconds to the last byte and to the first.
    /// </summary>
    /// <param name="what">The row or request as failure messages name it.</param>
    internal static async Task<(double Seconds, double? FirstByte)> GetVerifiedAsync(HttpClient client, Uri uri, long length, UInt128 hash, string what, CancellationToken cancellationToken)
    {
        var hasher = new XxHash128();
        long received = 0;
        var buffer = ArrayPool<byte>.Shared.Rent(ClientBufferBytes);
        try
        {
            var clock = Stopwatch.StartNew();
            using var request = new HttpRequestMessage(HttpMethod.Get, uri);
            using var response = await client.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, cancellationToken);
            await TransferClient.EnsureSuccessAsync(response, cancellationToken);
            await using var body = await response.Content.ReadAsStreamAsync(cancellationToken);
            double? firstByte = null;
            int read;
            while ((read = await body.ReadAsync(buffer.AsMemory(0, ClientBufferBytes), cancellationToken)) > 0)
            {
                firstByte ??= clock.Elapsed.TotalSeconds;
                hasher.Append(buffer.AsSpan(0, read));
                received += read;
            }

            var seconds = clock.Elapsed.TotalSeconds;
            if (received != length || hasher.GetCurrentHashAsUInt128() != hash)
            {
                throw new VerificationException($"{what}: {received} bytes arrived, not the payload's {length} bytes and hash.");
            }

            return (seconds, firstByte);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    private static async Task VerifyStoredFileAsync(string path, UInt128 hash, FilesScenario scenario, CancellationToken cancellationToken)
    {
        var hasher = new XxHash128();
        var buffer = ArrayPool<byte>.Shared.Rent(ClientBufferBytes);
        try
        {
            await using var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, bufferSize: 0, useAsync: true);
            int read;
            while ((read = await file.ReadAsync(buffer.AsMemory(0, ClientBufferBytes), cancellationToken)) > 0)
            {
                hasher.Append(buffer.AsSpan(0, read));
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }

        if (hasher.GetCurrentHashAsUInt128() != hash)
        {
            throw new VerificationException($"{scenario.Id} ({scenario.Describe()}): the file nginx stored is not the payload.");
        }
    }

    /// <summary>The request body of every upload row: the payload from memory, read in 1 MiB pieces, with its length known.</summary>
    internal static StreamContent Body(byte[] payload)
    {
        var content = new StreamContent(new MemoryStream(payload, writable: false), ClientBufferBytes);
        content.Headers.ContentType = new MediaTypeHeaderValue("application/octet-stream");
        return content;
    }

    /// <param name="rgwVersion">The S3 server's version on <c>--store s3</c> (null without one).</param>
    internal static ScenarioResult Summarize(FilesScenario scenario, List<RunSample> samples, string? failure, string? rgwVersion)
    {
        var parameters = new ScenarioParameters
        {
            Label = scenario.Describe(),
            PayloadBytes = scenario.PayloadBytes,
            Direction = scenario.IsUpload ? "upload" : "download",
            Server = scenario.IsS3Direct ? "rgw" : scenario.IsPeer ? "nginx" : "freight",
            Store = scenario.Store,
            Scheme = "http",
            Protocol = "http/1.1",
            ClientBufferBytes = scenario.SendsFile ? null : ClientBufferBytes,
        };
        if (scenario.SendsFile)
        {
            parameters.Source = "file";
            parameters.Transport = "sendfile";
        }

        if (scenario.Store == FilesSuite.S3Store)
        {
            parameters.S3Server = "ceph-rgw-memstore";
            if (rgwVersion is not null)
            {
                parameters.RgwVersion = rgwVersion;
            }

            // Whose CPU the row's server cost counts (see MeasureAsync).
            parameters.ServerCpu = scenario.IsS3Direct ? "radosgw+ceph-osd" : "freight+radosgw+ceph-osd";
        }

        var row = ScenarioSummary.Row(scenario.RowId, FilesSuite.Name, parameters, failure);
        ScenarioSummary.AddTransfers(row, samples, scenario.IsPeer ? TransferFigures.PerRunCosts : TransferFigures.PerRunCosts | TransferFigures.ServerAllocations);
        return row;
    }

    private sealed record LabAnswer(long Bytes, string Hash);

    /// <summary>A payload's bytes, and the file holding them for the rows that send from a file (null for the others).</summary>
    private sealed record Payload(byte[] Bytes, string? File);
}
