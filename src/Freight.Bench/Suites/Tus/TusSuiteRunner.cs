using System.Buffers;
using System.Diagnostics;
using System.IO.Hashing;
using System.Net;
using System.Net.Http.Headers;
using Freight.Bench.Load;
using Freight.Bench.Measure;
using Freight.Bench.Peers;
using Freight.Bench.Progress;
using Freight.Bench.Reports;
using Freight.Bench.Results;
using Freight.Bench.Suites.Files;
using Freight.Lab.Payload;
using Freight.Storage;

namespace Freight.Bench.Suites.Tus;

/// <summary>
/// Runs <c>--suite tus</c> (issue 7): the same tus client uploads every payload to Freight's tus endpoint and
/// to @tus/server (file store) in PATCHes of each chunk size, beside the files API's single PUT, interleaved
/// like every suite. Every upload is verified: Freight's by the finished file's ETag and length through the
/// files API (the ETag is the content's XXH3-128), the peer's by hashing the file its store wrote.
/// </summary>
public sealed class TusSuiteRunner(BenchOptions options, IBenchProgress progress, ServerUnderTest server, HttpClient client, string workDirectory, Action<int>? pinProcess = null)
{
    /// <summary>Reads of 1 MiB when hashing a stored file: the hash (tens of GB/s), not the calls, sets the pace.</summary>
    private const int HashBufferBytes = 1024 * 1024;

    private readonly TusUploadClient _tus = new(client);

    public async Task<(List<ScenarioResult> Results, List<RatioResult> Ratios, bool Verified, SuiteCheck? Check)> RunAsync(CancellationToken cancellationToken)
    {
        var sizes = options.SizeGiven ? [options.PayloadBytes] : TusSuite.Sizes(options.Quick);
        var scenarios = TusSuite.Create(options.Quick, sizes)
            .Where(s => options.Matches(s.Id))
            .ToList();
        if (scenarios.Count == 0 || server.Target.Http is null)
        {
            return ([], [], true, null);
        }

        var payloads = sizes.ToDictionary(size => size, size => DeterministicPayload.Create(size));
        var hashes = payloads.ToDictionary(pair => pair.Key, pair => XxHash128.HashToUInt128(pair.Value));
        var peerStart = await StartPeerAsync(scenarios, cancellationToken);
        await using (peerStart.Server)
        {
            if (peerStart.Server is null && peerStart.Failure is null)
            {
                // Not available here: the rows are left out, as nginx's are where nginx is missing.
                scenarios = scenarios.Where(s => !s.IsPeer).ToList();
            }

            progress.SuiteStarted(
                TusSuite.Name,
                $"tus suite: {CountText.Format(scenarios.Count, "scenario")} × {CountText.Format(options.Runs, "run")} of ≥{options.RunSeconds:0.##} s; tus-node {peerStart.Note}",
                InterleavedRuns.PlannedSeconds(scenarios.Count, options));
            var measured = await InterleavedRuns.RunAsync(
                scenarios,
                options,
                progress,
                s => (s.RowId, s.Describe()),
                (scenario, seconds) => MeasureAsync(scenario, seconds, payloads[scenario.PayloadBytes], hashes[scenario.PayloadBytes], peerStart, cancellationToken),
                goals: (samplesSoFar, level) =>
                {
                    var rows = scenarios.Select(s => Summarize(s, samplesSoFar[s], null)).ToList();
                    return GoalCheck<TusScenario>.Of(scenarios, rows, TusRatios.Compute(rows, sizes.Max()), level);
                });
            var (samples, failures) = measured;

            var results = scenarios.Select(s => Summarize(s, samples[s], failures.GetValueOrDefault(s))).ToList();
            foreach (var row in results)
            {
                progress.RowFinished(row);
            }

            progress.SuiteFinished();
            var ratios = TusRatios.Compute(results, sizes.Max()).Select(r => r.WithStop(measured.Stop, measured.RunsAdded)).ToList();
            return (results, ratios, failures.Count == 0, SuiteCheck.Of(TusSuite.Name, ratios, measured.Stop, measured.Passes, options.MaxSeconds));
        }
    }

    /// <summary>
    /// The peer, or why not: when Node is missing (or too old, or the bench runs outside a clone) its rows are
    /// left out with the reason printed; when it is there but will not install or start, its rows fail with
    /// that reason (and the bench exits 1).
    /// </summary>
    private async Task<PeerStart> StartPeerAsync(List<TusScenario> scenarios, CancellationToken cancellationToken)
    {
        if (!scenarios.Any(s => s.IsPeer))
        {
            return new PeerStart(null, "not measured", null);
        }

        try
        {
            var (installation, unavailable) = await TusNode.LocateAsync(options.TusNodeDirectory, cancellationToken);
            if (installation is null)
            {
                return new PeerStart(null, $"left out: {unavailable}", null);
            }

            var peer = await TusNode.StartAsync(
                installation,
                new TusNodeOptions { StoreDirectory = Path.Combine(workDirectory, "tus-node-store"), WorkDirectory = Path.Combine(workDirectory, "tus-node-work") },
                cancellationToken);
            pinProcess?.Invoke(peer.ProcessId);
            return new PeerStart(peer, $"(@tus/server, node {installation.NodeVersion}) at {peer.BaseAddress}", null);
        }
        catch (Exception failure) when (failure is InvalidOperationException or IOException or System.ComponentModel.Win32Exception)
        {
            return new PeerStart(null, $"failed: {failure.Message}", failure.Message);
        }
    }

    private Uri TusEndpoint => new(server.Target.Http!, "/tus/");

    private Uri ApiUri(string key) => new(server.Target.Http!, "/files/" + key);

    private static string FileName(TusScenario scenario) => scenario.Id == TusSuite.Put
        ? $"bench-tus-put-{scenario.PayloadBytes}.bin"
        : $"bench-tus-{scenario.PayloadBytes}-{scenario.ChunkBytes}.bin";

    private async Task<RunSample> MeasureAsync(TusScenario scenario, double seconds, byte[] payload, UInt128 hash, PeerStart peerStart, CancellationToken cancellationToken)
    {
        var peer = peerStart.Server;
        if (scenario.IsPeer && peer is null)
        {
            throw new VerificationException(peerStart.Failure ?? "the tus peer did not start.");
        }

        var serverBefore = scenario.IsPeer ? null : await server.Metrics.CaptureAsync(cancellationToken);
        var peerBefore = scenario.IsPeer ? ProcessStatSnapshot.Capture(peer!.ProcessId) : null;
        var cpuBefore = Environment.CpuUsage.TotalTime;
        var allocatedBefore = GC.GetTotalAllocatedBytes();
        var live = progress.Live;
        long bytes = 0;
        var count = 0;
        double busy = 0;
        var clock = Stopwatch.StartNew();
        do
        {
            busy += await TransferAsync(scenario, payload, hash, peer, cancellationToken);
            bytes += payload.LongLength;
            count++;
            live.AddVerified(payload.LongLength);
        }
        while (clock.Elapsed.TotalSeconds < seconds);

        var cpu = (Environment.CpuUsage.TotalTime - cpuBefore).TotalSeconds;
        var allocated = GC.GetTotalAllocatedBytes() - allocatedBefore;
        var serverAfter = scenario.IsPeer ? null : await server.Metrics.CaptureAsync(cancellationToken);
        if (scenario.IsPeer && peerBefore is not null && ProcessStatSnapshot.Capture(peer!.ProcessId) is { } peerAfter)
        {
            // The peer's CPU in the same shape as our server's snapshots: only CPU seconds and memory are known.
            serverBefore = new Freight.Lab.Metrics.RuntimeSnapshot(peerBefore.CpuSeconds, 0, 0, 0, 0, 0, peerBefore.WorkingSetBytes, 0, 0, 0, 0, 0);
            serverAfter = new Freight.Lab.Metrics.RuntimeSnapshot(peerAfter.CpuSeconds, 0, 0, 0, 0, 0, peerAfter.WorkingSetBytes, 0, 0, 0, 0, 0);
        }

        return new RunSample(bytes, count, busy, null, cpu, allocated, serverBefore, serverAfter);
    }

    /// <summary>
    /// One verified upload of a new file: the previous one is removed and dirty pages written back first,
    /// untimed, as in the files suite (see <see cref="FilesSuiteRunner"/>: replacing a large file or
    /// writeback left over from the last row otherwise lands on whichever row comes next). The seconds cover
    /// the requests only (creation and every PATCH, or the PUT), not the verification after them.
    /// </summary>
    private async Task<double> TransferAsync(TusScenario scenario, byte[] payload, UInt128 hash, TusNodeServer? peer, CancellationToken cancellationToken)
    {
        var name = FileName(scenario);
        if (scenario.IsPeer)
        {
            ClearStore(peer!);
        }
        else
        {
            await DeleteAsync(ApiUri(name), cancellationToken);
        }

        await FilesSuiteRunner.SyncAsync(cancellationToken);
        var clock = Stopwatch.StartNew();
        switch (scenario.Id)
        {
            case TusSuite.Put:
            {
                using var request = new HttpRequestMessage(HttpMethod.Put, ApiUri(name)) { Content = Body(payload) };
                using var response = await client.SendAsync(request, cancellationToken);
                var seconds = clock.Elapsed.TotalSeconds;
                await TransferClient.EnsureSuccessAsync(response, cancellationToken);
                var expected = FileSystemObjectStore.FormatETag(hash);
                if (response.Headers.ETag?.ToString() != expected)
                {
                    throw new VerificationException($"PUT {request.RequestUri}: ETag {response.Headers.ETag} but the payload's content hash is {expected}.");
                }

                return seconds;
            }

            case TusSuite.Upload:
            {
                await _tus.UploadAsync(TusEndpoint, name, payload, scenario.ChunkBytes!.Value, cancellationToken);
                var seconds = clock.Elapsed.TotalSeconds;
                await VerifyFileAsync(ApiUri(name), payload.LongLength, hash, scenario, cancellationToken);
                return seconds;
            }

            case TusSuite.NodePeer:
            {
                var upload = await _tus.UploadAsync(peer!.Endpoint, name, payload, scenario.ChunkBytes!.Value, cancellationToken);
                var seconds = clock.Elapsed.TotalSeconds;
                await VerifyStoredFileAsync(peer.StoredFilePath(upload.Id), payload.LongLength, hash, scenario, cancellationToken);
                return seconds;
            }

            default:
                throw new ArgumentException($"Unknown tus scenario {scenario.Id}.", nameof(scenario));
        }
    }

    /// <summary>The file store holds only this run's uploads, one at a time: the last one (bytes and .json) goes.</summary>
    private static void ClearStore(TusNodeServer peer)
    {
        foreach (var file in Directory.EnumerateFiles(peer.StoreDirectory))
        {
            File.Delete(file);
        }
    }

    private async Task DeleteAsync(Uri uri, CancellationToken cancellationToken)
    {
        using var request = new HttpRequestMessage(HttpMethod.Delete, uri);
        using var response = await client.SendAsync(request, cancellationToken);
        if (!response.IsSuccessStatusCode && response.StatusCode != HttpStatusCode.NotFound)
        {
            throw new VerificationException($"DELETE {uri}: {(int)response.StatusCode} {await response.Content.ReadAsStringAsync(cancellationToken)}");
        }
    }

    /// <summary>A finished tus upload is the files API's file: HEAD gives its length and ETag, the content's XXH3-128.</summary>
    private async Task VerifyFileAsync(Uri uri, long length, UInt128 hash, TusScenario scenario, CancellationToken cancellationToken)
    {
        using var request = new HttpRequestMessage(HttpMethod.Head, uri);
        using var response = await client.SendAsync(request, cancellationToken);
        await TransferClient.EnsureSuccessAsync(response, cancellationToken);
        var expected = FileSystemObjectStore.FormatETag(hash);
        if (response.Headers.ETag?.ToString() != expected || response.Content.Headers.ContentLength != length)
        {
            throw new VerificationException($"{scenario.Id} ({scenario.Describe()}): HEAD {uri} answered {response.Content.Headers.ContentLength} bytes with ETag {response.Headers.ETag}, not the payload's {length} bytes with {expected}.");
        }
    }

    private static async Task VerifyStoredFileAsync(string path, long length, UInt128 hash, TusScenario scenario, CancellationToken cancellationToken)
    {
        var hasher = new XxHash128();
        long stored = 0;
        var buffer = ArrayPool<byte>.Shared.Rent(HashBufferBytes);
        try
        {
            await using var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, bufferSize: 0, useAsync: true);
            int read;
            while ((read = await file.ReadAsync(buffer.AsMemory(0, HashBufferBytes), cancellationToken)) > 0)
            {
                hasher.Append(buffer.AsSpan(0, read));
                stored += read;
            }
        }
        catch (FileNotFoundException)
        {
            throw new VerificationException($"{scenario.Id} ({scenario.Describe()}): the peer stored no file at {path}.");
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }

        if (stored != length || hasher.GetCurrentHashAsUInt128() != hash)
        {
            throw new VerificationException($"{scenario.Id} ({scenario.Describe()}): the file the peer stored ({stored} bytes) is not the payload ({length} bytes).");
        }
    }

    /// <summary>The files suite's PUT body: the payload through a 1 MiB copy buffer, as the tus client's PATCHes.</summary>
    private static StreamContent Body(byte[] payload)
    {
        var content = new StreamContent(new MemoryStream(payload, writable: false), TusUploadClient.ClientBufferBytes);
        content.Headers.ContentType = new MediaTypeHeaderValue("application/octet-stream");
        return content;
    }

    internal static ScenarioResult Summarize(TusScenario scenario, List<RunSample> samples, string? failure)
    {
        var parameters = new ScenarioParameters
        {
            Label = scenario.Describe(),
            PayloadBytes = scenario.PayloadBytes,
            Direction = "upload",
            Server = scenario.IsPeer ? "tus-node" : "freight",
            Scheme = "http",
            Protocol = "http/1.1",
            ClientBufferBytes = TusUploadClient.ClientBufferBytes,
        };
        if (scenario.ChunkBytes is { } chunk)
        {
            parameters.ChunkBytes = chunk;
            parameters.RequestsPerTransfer = 1 + (int)((scenario.PayloadBytes + chunk - 1) / chunk);
        }

        var row = ScenarioSummary.Row(scenario.RowId, TusSuite.Name, parameters, failure);
        ScenarioSummary.AddTransfers(row, samples, scenario.IsPeer ? TransferFigures.None : TransferFigures.ServerAllocations);
        return row;
    }

    /// <summary>The tus peer when it runs; what the console says about it; why it failed when it is there but did not start.</summary>
    private sealed record PeerStart(TusNodeServer? Server, string Note, string? Failure);
}
