using System.Text.Json;
using Freight.Bench.Reports;
using Freight.Bench.Results;
using Freight.Bench.Suites.Tus;

namespace Freight.Bench.Tests.Tus;

/// <summary>
/// <c>freight bench --suite tus</c> end to end at 20 MiB only (the embedded server and the real tus peer), and
/// the suite's shape, options and ratios.
/// </summary>
public sealed class TusSuiteTests
{
    private const long TwentyMiB = 20L * 1024 * 1024;

    private const int SixteenMiB = 16 * 1024 * 1024;

    [Fact]
    public async Task BenchTusQuick_OneSize_EveryRowVerifiedWithItsChunkSizeAndTheGoalRatios()
    {
        var (exitCode, console, root) = await RunAsync([]);

        Assert.True(exitCode == 0, console);
        Assert.True(root.GetProperty("verified").GetBoolean());
        var rows = root.GetProperty("results").EnumerateArray().ToList();
        Assert.Equal(["files/put", "files/put#a", "peer/tus-node", "upload/tus"], rows.Select(r => r.GetProperty("scenario").GetString()).Order());
        Assert.All(rows, row =>
        {
            var id = row.GetProperty("scenario").GetString();
            Assert.Equal("tus", row.GetProperty("suite").GetString());
            Assert.True(row.GetProperty("verified").GetBoolean(), id);
            Assert.True(row.GetProperty("bytesPerSecond").GetProperty("median").GetDouble() > 0, id);
            Assert.True(row.GetProperty("server").GetProperty("cpuSecondsPerGiB").GetDouble() > 0, id);
            var parameters = row.GetProperty("parameters");
            Assert.Equal(TwentyMiB, parameters.GetProperty("payloadBytes").GetInt64());
            Assert.Equal(id is "files/put" or "files/put#a" ? JsonValueKind.Undefined : JsonValueKind.Number, parameters.TryGetProperty("chunkBytes", out var chunk) ? chunk.ValueKind : JsonValueKind.Undefined);
            if (id is not ("files/put" or "files/put#a"))
            {
                Assert.Equal(SixteenMiB, chunk.GetInt32());
                Assert.Equal(3, parameters.GetProperty("requestsPerTransfer").GetInt32());
            }
        });

        var ratios = root.GetProperty("ratios").EnumerateArray().ToList();
        Assert.Equal(["A/A files/put#a / files/put", "upload/tus / files/put, 16 MiB chunks, 20 MiB", "upload/tus / peer/tus-node, 16 MiB chunks, 20 MiB"], ratios.Select(r => r.GetProperty("name").GetString()).Order());
        Assert.All(ratios, ratio => Assert.True(ratio.GetProperty("value").GetDouble() > 0));
        Assert.Contains("upload/tus / peer/tus-node, 16 MiB chunks, 20 MiB", console, StringComparison.Ordinal);
        Assert.Contains("20 MiB, http h1, to disk, 16 MiB chunks", console, StringComparison.Ordinal);
    }

    [Fact]
    public async Task BenchTus_PeerFailsToStart_PeerRowNotVerifiedWithTheReasonOthersMeasured()
    {
        var package = Directory.CreateTempSubdirectory("freight-tus-broken-peer-").FullName;
        try
        {
            TusNodePeer.WriteFakePackage(package, "console.error('broken peer'); process.exit(5);");

            var (exitCode, console, root) = await RunAsync(["--tus-node-dir", package, "--filter", "tus"]);

            Assert.Equal(1, exitCode);
            Assert.False(root.GetProperty("verified").GetBoolean());
            var rows = root.GetProperty("results").EnumerateArray().ToDictionary(r => r.GetProperty("scenario").GetString()!);
            Assert.True(rows["upload/tus"].GetProperty("verified").GetBoolean(), console);
            Assert.False(rows["peer/tus-node"].GetProperty("verified").GetBoolean());
            Assert.Contains("exited with code 5", rows["peer/tus-node"].GetProperty("error").GetString(), StringComparison.Ordinal);
            Assert.Contains("broken peer", rows["peer/tus-node"].GetProperty("error").GetString(), StringComparison.Ordinal);
            Assert.Contains("NOT VERIFIED", console, StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(package, recursive: true);
        }
    }

    [Fact]
    public void Create_Full_EverySizeAndChunkSizeForBothServersAndOnePutAtTheLargestSize()
    {
        var scenarios = TusSuite.Create(quick: false);

        // 2 servers × 2 sizes × 3 chunk sizes, one PUT, and the PUT again as the A/A control.
        Assert.Equal(14, scenarios.Count);
        Assert.Equal(new TusScenario("files/put", 1L << 30, null, AaCopy: true), scenarios[^1]);
        var put = Assert.Single(scenarios, s => s.Id == "files/put" && !s.AaCopy);
        Assert.Equal(1L << 30, put.PayloadBytes);
        Assert.Null(put.ChunkBytes);
        foreach (var id in new[] { "upload/tus", "peer/tus-node" })
        {
            Assert.Equal(
                [(20L << 20, 4 << 20), (20L << 20, 16 << 20), (20L << 20, 64 << 20), (1L << 30, 4 << 20), (1L << 30, 16 << 20), (1L << 30, 64 << 20)],
                scenarios.Where(s => s.Id == id).Select(s => (s.PayloadBytes, s.ChunkBytes!.Value)).Order());
        }

        Assert.Equal("1 GiB, http h1, to disk, 16 MiB chunks", new TusScenario("upload/tus", 1L << 30, 16 << 20).Describe());
        Assert.Equal("1 GiB, http h1, to disk, one PUT", put.Describe());
    }

    [Fact]
    public void Create_Quick_TwoSizesAtSixteenMiBChunks()
    {
        var scenarios = TusSuite.Create(quick: true);

        Assert.Equal(6, scenarios.Count);
        Assert.All(scenarios.Where(s => s.Id != "files/put"), s => Assert.Equal(SixteenMiB, s.ChunkBytes));
        Assert.Equal([20L << 20, 256L << 20], scenarios.Where(s => s.Id == "upload/tus").Select(s => s.PayloadBytes).Order());
        Assert.All(scenarios.Where(s => s.Id == "files/put"), s => Assert.Equal(256L << 20, s.PayloadBytes));
    }

    [Fact]
    public void Ratios_GoalsAtSixteenMiBChunksOfTheLargestSize()
    {
        ScenarioResult Row(string id, long size, int? chunk, double rate, bool verified = true)
        {
            var parameters = new ScenarioParameters { Label = "", PayloadBytes = size };
            if (chunk is { } c)
            {
                parameters.ChunkBytes = c;
            }

            return new ScenarioResult { Scenario = id, Suite = "tus", Parameters = parameters, Verified = verified, BytesPerSecond = new Summary(rate, rate, rate) };
        }

        var results = new List<ScenarioResult>
        {
            Row("files/put", 1L << 30, null, 1000),
            Row("upload/tus", 1L << 30, 4 << 20, 1),
            Row("upload/tus", 1L << 30, SixteenMiB, 900),
            Row("upload/tus", 20L << 20, SixteenMiB, 2),
            Row("peer/tus-node", 1L << 30, SixteenMiB, 500),
            Row("peer/tus-node", 1L << 30, 64 << 20, 3),
        };

        var ratios = TusRatios.Compute(results, 1L << 30).ToList();

        var peer = Assert.Single(ratios, r => r.Denominator == "peer/tus-node");
        Assert.Equal("upload/tus / peer/tus-node, 16 MiB chunks, 1 GiB", peer.Name);
        Assert.Equal(1.8, peer.Value!.Value, 9);
        Assert.Equal(1.5, peer.Goal);
        Assert.True(peer.GoalMet);
        var put = Assert.Single(ratios, r => r.Denominator == "files/put");
        Assert.Equal("upload/tus / files/put, 16 MiB chunks, 1 GiB", put.Name);
        Assert.Equal(0.9, put.Value!.Value, 9);
        Assert.Equal(0.85, put.Goal);
        Assert.True(put.GoalMet);

        results[4] = Row("peer/tus-node", 1L << 30, SixteenMiB, 500, verified: false);
        Assert.Null(Assert.Single(TusRatios.Compute(results, 1L << 30), r => r.Denominator == "peer/tus-node").Value);
    }

    [Fact]
    public void Parse_SuiteTus_OnlyWhenNamedWithItsOptions()
    {
        var named = BenchCommand.Parse(["--suite", "tus", "--size", "1048576", "--tus-node-dir", "peer"], out var error);
        var defaults = BenchCommand.Parse([], out _);

        Assert.Null(error);
        Assert.Equal(["tus"], named!.Suites);
        Assert.True(named.SizeGiven);
        Assert.Equal(1048576, named.PayloadBytes);
        Assert.Equal(Path.GetFullPath("peer"), named.TusNodeDirectory);
        Assert.DoesNotContain("tus", defaults!.Suites);
        Assert.False(defaults.SizeGiven);
        Assert.Contains("transfer, json, threads, static, files, tus, micro", Cli.FreightCli.Help("bench"), StringComparison.Ordinal);
    }

    private static async Task<(int ExitCode, string Console, JsonElement Root)> RunAsync(string[] extra)
    {
        var json = Path.Combine(Path.GetTempPath(), $"freight-tus-bench-test-{Guid.NewGuid():N}.json");
        try
        {
            var options = BenchCommand.Parse(["--suite", "tus", "--quick", "--size", TwentyMiB.ToString(System.Globalization.CultureInfo.InvariantCulture), "--json", json, .. extra], out var error);
            Assert.Null(error);
            var console = new StringWriter();

            var exitCode = await new BenchRunner(options!, console).RunAsync(CancellationToken.None);

            using var document = JsonDocument.Parse(await File.ReadAllTextAsync(json));
            return (exitCode, console.ToString(), document.RootElement.Clone());
        }
        finally
        {
            File.Delete(json);
            File.Delete(Path.ChangeExtension(json, ".html"));
        }
    }
}
