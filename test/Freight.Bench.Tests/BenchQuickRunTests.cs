using System.Text.Json;
using Freight.Bench;

namespace Freight.Bench.Tests;

/// <summary>
/// The README's main command, end to end, in its CI form: `freight bench --quick` (the default run's headline rows,
/// shorter) against the embedded server.
/// </summary>
public sealed class BenchQuickRunTests
{
    private static readonly string[] StudyOneScenarioIds =
    [
        "tcp/loopback",
        "download/stream-4k", "download/stream-default", "download/stream-64k", "download/bytes",
        "download/pipewriter", "download/file", "download/freight",
        "upload/iformfile", "upload/multipart-reader", "upload/multipart-freight", "upload/freight",
    ];

    private static readonly string[] StudyTwoScenarioIds =
    [
        "json/newtonsoft-buffered", "json/newtonsoft-unbuffered", "json/stj", "json/stj-stream",
    ];

    // threads/sync-over-async is --full only (not one of the study's actions).
    private static readonly string[] StudyThreeScenarioIds = ["threads/sleep", "threads/delay"];

    private static readonly (string Id, string Generator)[] StudyFourRows =
        [("static/staticfiles", "engine"), ("static/freight", "engine"), ("static/freight", "wrk"), ("peer/nginx", "wrk")];

    [Fact]
    public async Task BenchQuick_EmbeddedServer_WritesVerifiedJsonWithEveryScenario()
    {
        var json = Path.Combine(Path.GetTempPath(), $"freight-bench-test-{Guid.NewGuid():N}.json");
        try
        {
            var options = BenchCommand.Parse(["--quick", "--json", json], out var error);
            Assert.Null(error);
            var console = new StringWriter();

            var exitCode = await new BenchRunner(options!, console).RunAsync(CancellationToken.None);

            Assert.True(exitCode == 0, console.ToString());
            using var document = JsonDocument.Parse(await File.ReadAllTextAsync(json));
            var root = document.RootElement;
            Assert.Equal("freight", root.GetProperty("tool").GetString());
            Assert.True(root.GetProperty("verified").GetBoolean());
            var results = root.GetProperty("results").EnumerateArray().ToList();
            foreach (var id in StudyOneScenarioIds)
            {
                // The files suite measures download/freight and upload/freight too, at its own sizes.
                var rows = results.Where(r => r.GetProperty("scenario").GetString() == id && r.GetProperty("suite").GetString() == "transfer").ToList();
                Assert.True(rows.Count > 0, $"{id} is missing from the result");
                Assert.All(rows, row =>
                {
                    Assert.True(row.GetProperty("verified").GetBoolean(), id);
                    Assert.True(row.GetProperty("bytesPerSecond").GetProperty("median").GetDouble() > 0, id);
                    Assert.Equal(row.GetProperty("runs").GetInt32(), row.GetProperty("bytesPerSecond").GetProperty("samples").GetArrayLength());
                    Assert.Equal(20L * 1024 * 1024, row.GetProperty("parameters").GetProperty("payloadBytes").GetInt64());
                });
            }

            // A goal between two rows that kept their runs carries a 95 % interval and the verdict drawn from it.
            var goal = root.GetProperty("ratios").EnumerateArray().Single(r => r.GetProperty("name").GetString() == "download-freight / download-file");
            Assert.True(goal.GetProperty("low").GetDouble() <= goal.GetProperty("estimate").GetDouble());
            Assert.True(goal.GetProperty("estimate").GetDouble() <= goal.GetProperty("high").GetDouble());
            Assert.Equal("paired-log-t", goal.GetProperty("method").GetString());
            Assert.Contains(goal.GetProperty("verdict").GetString(), new[] { "met", "missed", "inconclusive" });

            // Each suite's A/A control: a copy row (id#a), its ratio in suiteChecks, and why the runs ended (--quick adds none).
            var checks = root.GetProperty("suiteChecks").EnumerateArray().ToDictionary(c => c.GetProperty("suite").GetString()!);
            Assert.Equal(["files", "json", "static", "transfer"], checks.Keys.Order());
            // The static suite's single --quick round gives its A/A no interval, so no control ratio; the others have one.
            Assert.All(checks.Values, c => Assert.True(
                c.TryGetProperty("control", out var control)
                    ? control.GetProperty("numerator").GetString()!.EndsWith("#a", StringComparison.Ordinal)
                    : c.GetProperty("suite").GetString() == "static",
                $"{c.GetProperty("suite").GetString()}: no A/A control"));
            Assert.All(checks.Values, c => Assert.Equal("off", c.GetProperty("stop").GetString()));
            Assert.True(checks["transfer"].GetProperty("noiseFloor").GetDouble() >= 0);
            Assert.Contains(root.GetProperty("unreliable").ValueKind, new[] { JsonValueKind.True, JsonValueKind.False });
            Assert.Contains("transfer: noise floor ±", console.ToString(), StringComparison.Ordinal);

            // Every HTTP transfer row carries the server's and the client's CPU cost; study rows their published figure.
            Assert.All(results.Where(r => r.GetProperty("suite").GetString() == "transfer" && r.GetProperty("scenario").GetString() != "tcp/loopback"), row =>
            {
                Assert.True(row.GetProperty("server").GetProperty("cpuSecondsPerGiB").GetDouble() >= 0);
                Assert.True(row.GetProperty("client").GetProperty("cpuSecondsPerGiB").GetDouble() >= 0);
            });
            Assert.Contains(results, r => r.TryGetProperty("published", out var p) && p.GetProperty("value").GetDouble() == 350);

            // Study 2: every JSON variant at concurrency 1 (8 only with --full), parsed and verified, with its server costs.
            foreach (var id in StudyTwoScenarioIds)
            {
                var rows = results.Where(r => r.GetProperty("scenario").GetString() == id).ToList();
                Assert.Equal([1], rows.Select(r => r.GetProperty("parameters").GetProperty("concurrency").GetInt32()));
                Assert.All(rows, row =>
                {
                    Assert.True(row.GetProperty("verified").GetBoolean(), id);
                    Assert.Equal(Freight.Lab.Json.LabRecordGenerator.DefaultRecordCount, row.GetProperty("parameters").GetProperty("records").GetInt32());
                    Assert.True(row.GetProperty("parameters").GetProperty("bodyBytes").GetInt64() > 25_000_000, id);
                    Assert.True(row.GetProperty("latencySeconds").GetProperty("p50").GetDouble() > 0, id);
                    Assert.True(row.GetProperty("server").GetProperty("cpuSecondsPerResponse").GetDouble() > 0, id);
                });
            }

            Assert.Contains("stj-stream ttfb / total time, c=1", console.ToString(), StringComparison.Ordinal);

            // Study 3: each endpoint under the ramp, every answer a 200, with a per-second series that
            // carries the server's own thread-pool samples, and a CSV of it beside the JSON.
            foreach (var id in StudyThreeScenarioIds)
            {
                var row = Assert.Single(results, r => r.GetProperty("scenario").GetString() == id);
                Assert.True(row.GetProperty("verified").GetBoolean(), id);
                Assert.True(row.GetProperty("statusCodes").GetProperty("200").GetInt64() > 0, id);
                Assert.True(row.GetProperty("latencySeconds").GetProperty("p50").GetDouble() >= 0.9, id);
                var series = row.GetProperty("series").EnumerateArray().ToList();
                Assert.NotEmpty(series);
                Assert.Contains(series, p => p.TryGetProperty("threadPoolThreads", out var t) && t.ValueKind == JsonValueKind.Number && t.GetInt32() > 0);
                var csv = Path.ChangeExtension(json, null) + "." + id.Replace('/', '-') + ".csv";
                Assert.StartsWith(Freight.Bench.Reports.SeriesCsv.Header, await File.ReadAllTextAsync(csv), StringComparison.Ordinal);
                File.Delete(csv);
            }
            Assert.Contains("multipart-reader / iformfile", console.ToString(), StringComparison.Ordinal);

            // Study 4: the stock and Freight's file paths under the engine, Freight and nginx (test.sh installs both
            // nginx and wrk) under wrk, at every file size; every engine body byte checked (wrk rounds by their bytes and a
            // checked GET after each), and the server's crank counters on each row.
            foreach (var (id, generator) in StudyFourRows)
            {
                var rows = results.Where(r => r.GetProperty("scenario").GetString() == id
                    && r.GetProperty("parameters").GetProperty("generator").GetString() == generator).ToList();
                Assert.Equal([4096L, 16384L, 131072L, 1048576L], rows.Select(r => r.GetProperty("parameters").GetProperty("fileBytes").GetInt64()).Order());
                Assert.All(rows, row =>
                {
                    Assert.True(row.GetProperty("verified").GetBoolean(), id);
                    Assert.True(row.GetProperty("requestsPerSecond").GetProperty("median").GetDouble() > 0, id);
                    Assert.True(row.GetProperty("statusCodes").GetProperty("200").GetInt64() > 0, id);
                    Assert.True(row.GetProperty("latencySeconds").GetProperty("p99").GetDouble() > 0, id);
                    Assert.True(row.GetProperty("counters").GetProperty("cpuPercent").GetDouble() > 0, id);
                    if (generator == "engine")
                    {
                        Assert.Equal(0, row.GetProperty("badResponses").GetInt64());
                        Assert.All(row.GetProperty("series").EnumerateArray(), p => Assert.True(p.GetProperty("completions").GetInt64() > 0, id));
                        Assert.NotEqual(0, row.GetProperty("series").GetArrayLength());
                    }

                    if (id != "peer/nginx")
                    {
                        Assert.True(row.GetProperty("counters").GetProperty("allocationBytesPerSecond").GetDouble() > 0, id);
                        Assert.True(row.GetProperty("counters").GetProperty("gcHeapBytes").GetInt64() > 0, id);
                    }
                });
            }

            Assert.Contains("freight / staticfiles req/s, 4 KiB, 32 conns", console.ToString(), StringComparison.Ordinal);
            Assert.Contains("freight / nginx req/s under wrk, 4 KiB, 32 conns", console.ToString(), StringComparison.Ordinal);

            // Issue 6: the files API's PUT and GET beside nginx's and the lab's, every transfer verified.
            // The PUTs run twice: from memory through HttpClient, and from a file by a client that sends it by sendfile.
            foreach (var id in new[] { "files/put", "files/get", "peer/nginx-put", "peer/nginx-get", "upload/freight", "download/freight", "files/put-sendfile", "peer/nginx-put-sendfile" })
            {
                var rows = results.Where(r => r.GetProperty("suite").GetString() == "files" && r.GetProperty("scenario").GetString() == id).ToList();
                Assert.Equal(256L << 20, Assert.Single(rows).GetProperty("parameters").GetProperty("payloadBytes").GetInt64());
                Assert.All(rows, row =>
                {
                    Assert.True(row.GetProperty("verified").GetBoolean(), id);
                    Assert.True(row.GetProperty("bytesPerSecond").GetProperty("median").GetDouble() > 0, id);
                });
            }

            Assert.Contains("files/get / nginx-get", console.ToString(), StringComparison.Ordinal);

            // The cost goals beside the speed goals: each run's server CPU per GiB kept, and a "≤" goal on it.
            Assert.All(results.Where(r => r.GetProperty("suite").GetString() == "files"), row =>
                Assert.Equal(row.GetProperty("runs").GetInt32(), row.GetProperty("server").GetProperty("cpuSecondsPerGiBSamples").GetArrayLength()));
            var cost = root.GetProperty("ratios").EnumerateArray().Single(r => r.GetProperty("name").GetString() == "server CPU s/GiB: files/get / nginx-get, 256 MiB");
            Assert.Equal("<=", cost.GetProperty("comparison").GetString());
            Assert.Contains(cost.GetProperty("verdict").GetString(), new[] { "met", "missed", "inconclusive" });
            var sendFileCost = root.GetProperty("ratios").EnumerateArray().Single(r => r.GetProperty("name").GetString() == "server CPU s/GiB: files/put-sendfile / nginx-put-sendfile, 256 MiB");
            Assert.True(sendFileCost.GetProperty("estimate").GetDouble() > 0);
        }
        finally
        {
            File.Delete(json);
            File.Delete(Path.ChangeExtension(json, ".html"));
        }
    }
}
