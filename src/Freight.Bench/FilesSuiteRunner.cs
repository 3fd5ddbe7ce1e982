using System.Buffers;
using System.Diagnostics;
using System.Net;
using System.Net.Http.Headers;
using System.Net.Http.Json;
using Freight.Bench.Load;
using Freight.Bench.Measure;
using Freight.Bench.Peers;
using Freight.Bench.Progress;
using Freight.Bench.Reports;
using Freight.Bench.Scenarios;
using Freight.Hashing;
using Freight.Payload;
using Freight.Storage;

namespace Freight.Bench;

/// <summary>
/// Runs <c>--suite files</c>: PUT and GET of each payload through the files API, nginx (WebDAV PUT, sendfile
/// GET) and the lab's raw paths, interleaved, every transfer verified: uploads by the stored bytes' hash
/// (the API's ETag is the content's XXH3-128; nginx's stored file and the lab's answer are hashed), downloads
/// by hashing the body as it arrives.
/// </summary>
public sealed class FilesSuiteRunner(BenchOptions options, IBenchProgress progress, ServerUnderTest server, HttpClient client, string workDirectory, Action<int>? pinProcess = null)
{
    private const double GiB = 1024d * 1024 * 1024;

    /// <summary>Client read and request-body buffer: 1 MiB, so the client spends few calls per GiB on either side of the wire.</summary>
    private const int ClientBufferBytes = 1024 * 1024;

    public async Task<(List<ScenarioResult> Results, List<RatioResult> Ratios, bool Verified)> RunAsync(CancellationToken cancellationToken)
    {
        var scenarios = FilesSuite.Create(options.Quick)
            .Where(s => options.Filter is null || s.Id.Contains(options.Filter, StringComparison.Ordinal))
            .ToList();
        if (scenarios.Count == 0 || server.Target.Http is null)
        {
            return ([], [], true);
        }

        var payloads = FilesSuite.Sizes(options.Quick).ToDictionary(size => size, size => DeterministicPayload.Create(size));
        var hashes = payloads.ToDictionary(pair => pair.Key, pair => XxHash128.HashToUInt128(pair.Value));
        await using var nginx = await StartNginxAsync(scenarios, payloads, cancellationToken);
        scenarios = scenarios.Where(s => !s.IsPeer || nginx is not null).ToList();
        progress.SuiteStarted(
            FilesSuite.Name,
            $"files suite: {scenarios.Count} scenarios × {options.Runs} runs of ≥{options.RunSeconds:0.##} s; nginx {(nginx is null ? "not installed (scripts/install-peers.sh)" : nginx.Version)}",
            InterleavedRuns.PlannedSeconds(scenarios.Count, options));

        // What the GET rows read: a file stored through the API itself.
        foreach (var (size, bytes) in payloads)
        {
            await PutAsync(ApiUri($"bench/get-{size}.bin"), bytes, hashes[size], cancellationToken);
        }

        var (samples, failures) = await InterleavedRuns.RunAsync(
            scenarios,
            options,
            progress,
            s => (s.Id, s.Describe()),
            (scenario, seconds) => MeasureAsync(scenario, seconds, payloads[scenario.PayloadBytes], hashes[scenario.PayloadBytes], nginx, cancellationToken));

        var results = scenarios.Select(s => Summarize(s, samples[s], failures.GetValueOrDefault(s))).ToList();
        foreach (var row in results)
        {
            progress.RowFinished(row);
        }

        progress.SuiteFinished();
        return (results, FilesRatios.Compute(results, FilesSuite.Sizes(options.Quick)[^1]).ToList(), failures.Count == 0);
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

    private async Task<RunSample> MeasureAsync(FilesScenario scenario, double seconds, byte[] payload, UInt128 hash, NginxServer? nginx, CancellationToken cancellationToken)
    {
        var serverBefore = scenario.IsPeer ? null : await server.Metrics.CaptureAsync(cancellationToken);
        var peerBefore = scenario.IsPeer ? ProcessStatSnapshot.Capture(nginx!.ProcessId) : null;
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
            var (elapsed, firstByte) = await TransferAsync(scenario, payload, hash, nginx, cancellationToken);
            bytes += payload.LongLength;
            busy += elapsed;
            count++;
            live.AddVerified(payload.LongLength);
            if (firstByte is { } first)
            {
                firstBytes.Add(first);
            }
        }
        while (clock.Elapsed.TotalSeconds < seconds);

        var cpu = (Environment.CpuUsage.TotalTime - cpuBefore).TotalSeconds;
        var allocated = GC.GetTotalAllocatedBytes() - allocatedBefore;
        var serverAfter = scenario.IsPeer ? null : await server.Metrics.CaptureAsync(cancellationToken);
        if (scenario.IsPeer && peerBefore is not null && ProcessStatSnapshot.Capture(nginx!.ProcessId) is { } peerAfter)
        {
            // The peer's CPU in the same shape as our server's snapshots: only CPU seconds are known.
            serverBefore = new Freight.Metrics.RuntimeSnapshot(peerBefore.CpuSeconds, 0, 0, 0, 0, 0, peerBefore.WorkingSetBytes, 0, 0, 0, 0, 0);
            serverAfter = new Freight.Metrics.RuntimeSnapshot(peerAfter.CpuSeconds, 0, 0, 0, 0, 0, peerAfter.WorkingSetBytes, 0, 0, 0, 0, 0);
        }

        return new RunSample(bytes, count, busy, Summary.Of(firstBytes)?.Median, cpu, allocated, serverBefore, serverAfter);
    }

    /// <summary>One verified transfer; the seconds cover the request only, not the verification after it.</summary>
    private async Task<(double Seconds, double? FirstByte)> TransferAsync(FilesScenario scenario, byte[] payload, UInt128 hash, NginxServer? nginx, CancellationToken cancellationToken)
    {
        var size = scenario.PayloadBytes;
        if (scenario.IsUpload)
        {
            await RemovePreviousUploadAsync(scenario, nginx, cancellationToken);
            await SyncAsync(cancellationToken);
        }

        switch (scenario.Id)
        {
            case FilesSuite.Put:
                return (await PutAsync(ApiUri($"bench/put-{size}.bin"), payload, hash, cancellationToken), null);

            case FilesSuite.NginxPut:
            {
                var seconds = await SendAsync(HttpMethod.Put, new Uri(nginx!.DavAddress!, $"put-{size}.bin"), payload, cancellationToken);
                await VerifyStoredFileAsync(Path.Combine(nginx.PutDirectory!, $"put-{size}.bin"), hash, scenario, cancellationToken);
                return (seconds, null);
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
                if (answer is null || answer.Bytes != payload.LongLength || answer.Hash != XxHash128.ToHex(hash))
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

    /// <summary>
    /// Every upload writes a new file: the previous one is removed first, untimed. Replacing a large file frees
    /// its blocks inside the timed request, and on a file system mounted with online discard (this project's
    /// VM: ext4 `discard`) that cost landed on whichever row came next — 20–300 MiB/s swings between rows.
    /// </summary>
    private async Task RemovePreviousUploadAsync(FilesScenario scenario, NginxServer? nginx, CancellationToken cancellationToken)
    {
        var size = scenario.PayloadBytes;
        switch (scenario.Id)
        {
            case FilesSuite.Put:
                using (var request = new HttpRequestMessage(HttpMethod.Delete, ApiUri($"bench/put-{size}.bin")))
                using (var response = await client.SendAsync(request, cancellationToken))
                {
                    if (!response.IsSuccessStatusCode && response.StatusCode != HttpStatusCode.NotFound)
                    {
                        throw new VerificationException($"DELETE {request.RequestUri}: {(int)response.StatusCode}");
                    }
                }

                break;
            case FilesSuite.NginxPut:
                DeleteIfPresent(Path.Combine(nginx!.PutDirectory!, $"put-{size}.bin"));
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
    private async Task<double> PutAsync(Uri uri, byte[] payload, UInt128 hash, CancellationToken cancellationToken)
    {
        using var request = new HttpRequestMessage(HttpMethod.Put, uri) { Content = Body(payload) };
        var clock = Stopwatch.StartNew();
        using var response = await client.SendAsync(request, cancellationToken);
        var seconds = clock.Elapsed.TotalSeconds;
        await TransferClient.EnsureSuccessAsync(response, cancellationToken);
        var expected = FileSystemObjectStore.FormatETag(hash);
        if (response.Headers.ETag?.ToString() != expected)
        {
            throw new VerificationException($"PUT {uri}: ETag {response.Headers.ETag} but the payload's content hash is {expected}.");
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

    private async Task<(double Seconds, double? FirstByte)> GetAsync(Uri uri, long length, UInt128 hash, FilesScenario scenario, CancellationToken cancellationToken)
    {
        var hasher = new XxHash128();
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
            }

            var seconds = clock.Elapsed.TotalSeconds;
            if (hasher.Length != length || hasher.GetCurrentHashAsUInt128() != hash)
            {
                throw new VerificationException($"{scenario.Id} ({scenario.Describe()}): {hasher.Length} bytes arrived, not the payload's {length} bytes and hash.");
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

    private static StreamContent Body(byte[] payload)
    {
        var content = new StreamContent(new MemoryStream(payload, writable: false), ClientBufferBytes);
        content.Headers.ContentType = new MediaTypeHeaderValue("application/octet-stream");
        return content;
    }

    private static ScenarioResult Summarize(FilesScenario scenario, List<RunSample> samples, string? failure)
    {
        var result = new ScenarioResult
        {
            Scenario = scenario.Id,
            Suite = FilesSuite.Name,
            Parameters = new Dictionary<string, object>
            {
                ["label"] = scenario.Describe(),
                ["payloadBytes"] = scenario.PayloadBytes,
                ["direction"] = scenario.IsUpload ? "upload" : "download",
                ["server"] = scenario.IsPeer ? "nginx" : "freight",
                ["scheme"] = "http",
                ["protocol"] = "http/1.1",
                ["clientBufferBytes"] = ClientBufferBytes,
            },
            Verified = failure is null,
            Error = failure,
        };
        if (result.FailsWithoutFigures(samples.Count))
        {
            return result;
        }

        var bytes = samples.Sum(s => s.Bytes);
        result.Runs = samples.Count;
        result.Transfers = samples.Sum(s => s.Transfers);
        result.BytesPerSecond = Summary.Of(samples.Select(s => s.BytesPerSecond).ToList());
        result.TimeToFirstByteSeconds = Summary.Of(samples.Where(s => s.MedianTimeToFirstByteSeconds.HasValue).Select(s => s.MedianTimeToFirstByteSeconds!.Value).ToList());
        result.Client = new SideCost(samples.Sum(s => s.ClientCpuSeconds) / (bytes / GiB), AllocatedBytesPerTransfer: samples.Sum(s => (double)s.ClientAllocatedBytes) / result.Transfers);
        if (samples.All(s => s.ServerBefore is not null && s.ServerAfter is not null))
        {
            result.Server = new SideCost(
                samples.Sum(s => s.ServerAfter!.CpuSeconds - s.ServerBefore!.CpuSeconds) / (bytes / GiB),
                AllocatedBytesPerTransfer: scenario.IsPeer ? null : samples.Sum(s => (double)(s.ServerAfter!.AllocatedBytes - s.ServerBefore!.AllocatedBytes)) / result.Transfers,
                WorkingSetBytesMax: samples.Max(s => s.ServerAfter!.WorkingSetBytes));
        }

        return result;
    }

    private sealed record LabAnswer(long Bytes, string Hash);
}
