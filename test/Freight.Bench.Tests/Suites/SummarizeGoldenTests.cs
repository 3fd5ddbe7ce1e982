using System.Text;
using System.Text.Json;
using Freight.Bench.Load;
using Freight.Bench.Load.Engine;
using Freight.Bench.Measure;
using Freight.Bench.Results;
using Freight.Bench.Suites.Files;
using Freight.Bench.Suites.Json;
using Freight.Bench.Suites.Static;
using Freight.Bench.Suites.Threads;
using Freight.Bench.Suites.Transfer;
using Freight.Bench.Suites.Tus;
using Freight.Bench.Tests.Reports;
using Freight.Lab.Metrics;

namespace Freight.Bench.Tests.Suites;

/// <summary>
/// Each suite's rows summarized from fixed synthetic runs, serialized as the result JSON writes them, against
/// Suites/Fixtures/summaries.golden.txt byte for byte. The golden was written by the suites' own Summarize copies
/// before they shared one path (main at d15f043): the shared path must write the same JSON for the same runs. After
/// an intended change to a row's figures, regenerate it with
/// <c>FREIGHTTEST_UPDATE_GOLDEN=1 dotnet test test/Freight.Bench.Tests --filter FullyQualifiedName~SummarizeGoldenTests</c>
/// and review the diff.
/// </summary>
public sealed class SummarizeGoldenTests
{
    private const long MiB = 1024 * 1024;

    private static readonly DateTimeOffset Start = new(2026, 11, 25, 4, 0, 0, TimeSpan.Zero);

    private static string GoldenPath { get; } = Path.Combine(AppContext.BaseDirectory, "Suites", "Fixtures", "summaries.golden.txt");

    [Fact]
    public void Summarize_FixedRuns_WritesTheGoldenJson()
    {
        var actual = Rows().Select(pair => (pair.Name, Json: JsonSerializer.Serialize(pair.Row, BenchReport.JsonOptions).ReplaceLineEndings("\n"))).ToList();
        if (ReportFixture.UpdateGoldens)
        {
            var text = new StringBuilder();
            foreach (var (name, json) in actual)
            {
                text.Append("=== ").Append(name).Append('\n').Append(json).Append('\n');
            }

            foreach (var path in new[] { Path.Combine(ReportFixture.RepositoryRoot(), "test", "Freight.Bench.Tests", "Suites", "Fixtures", "summaries.golden.txt"), GoldenPath })
            {
                Directory.CreateDirectory(Path.GetDirectoryName(path)!);
                File.WriteAllText(path, text.ToString());
            }
        }

        var golden = Golden();
        Assert.Equal(golden.Keys, actual.Select(a => a.Name));
        foreach (var (name, json) in actual)
        {
            Assert.True(golden[name] == json, $"{name} differs from its golden:\n{json}\n--- golden:\n{golden[name]}");
        }
    }

    [Fact]
    public void Golden_EverySuiteOfTheSixCopies_HasRows()
    {
        // A golden without a suite's rows would check nothing of that suite's path.
        var suites = Rows().Select(r => r.Row.Suite).Distinct().Order(StringComparer.Ordinal);

        Assert.Equal(["files", "json", "static", "threads", "transfer", "tus"], suites);
    }

    private static Dictionary<string, string> Golden()
    {
        var cases = new Dictionary<string, string>(StringComparer.Ordinal);
        string? name = null;
        var json = new StringBuilder();
        foreach (var line in File.ReadAllText(GoldenPath).ReplaceLineEndings("\n").Split('\n'))
        {
            if (line.StartsWith("=== ", StringComparison.Ordinal))
            {
                Flush();
                name = line[4..];
            }
            else if (name is not null)
            {
                json.Append(line).Append('\n');
            }
        }

        Flush();
        return cases;

        void Flush()
        {
            if (name is not null)
            {
                cases[name] = json.ToString().TrimEnd('\n');
            }

            json.Clear();
        }
    }

    /// <summary>Every case: its name and the row its suite's Summarize makes of it (also the in-memory report test's rows).</summary>
    internal static List<(string Name, ScenarioResult Row)> Rows() =>
    [
        ("transfer upload, file sink, chunked, instructions, ceiling", TransferSuiteRunner.Summarize(
            new TransferScenario("upload/freight", TransferDirection.Upload, ChunkedBody: true, Sink: "file"), 20 * MiB, TransferRuns(instructions: true, firstByte: false, disk: 4096), null, 3.1e9)),
        ("transfer download h2, published, A/A copy, a run without instructions", TransferSuiteRunner.Summarize(
            new TransferScenario("download/freight", TransferDirection.Download, Scheme: "https", Protocol: "h2", Published: new PublishedFigure(200, "MiB/s", 1, "D1, study 1"), AaCopy: true),
            20 * MiB, [.. TransferRuns(instructions: true, firstByte: true, disk: -1).Take(2), TransferRuns(instructions: false, firstByte: true, disk: -1)[2]], null, null)),
        ("transfer probe", TransferSuiteRunner.Summarize(
            new TransferScenario(TransferSuite.ProbeId, TransferDirection.Probe, ClientBufferBytes: 1024 * 1024), 20 * MiB, ProbeRuns(), null, 3.1e9)),
        ("transfer failed with runs", TransferSuiteRunner.Summarize(
            new TransferScenario("upload/iformfile", TransferDirection.Upload), 20 * MiB, TransferRuns(instructions: false, firstByte: false, disk: 0), "the server stored 20,971,519 bytes, not \"20,971,520\"", null)),
        ("transfer no run", TransferSuiteRunner.Summarize(
            new TransferScenario("upload/raw-stream", TransferDirection.Upload, Source: "file", ClientBufferBytes: 4096, Server: TransferScenario.StockPoolServer), 20 * MiB, [], null, null)),

        ("files put fs, instructions", FilesSuiteRunner.Summarize(new FilesScenario(FilesSuite.Put, 20 * MiB), TransferRuns(instructions: true, firstByte: false, disk: 0), null, null)),
        ("files nginx get, peer", FilesSuiteRunner.Summarize(new FilesScenario(FilesSuite.NginxGet, 20 * MiB), PeerRuns(firstByte: true), null, null)),
        ("files put s3, store CPU", FilesSuiteRunner.Summarize(new FilesScenario(FilesSuite.Put, 1024 * MiB, FilesSuite.S3Store, AaCopy: true), StoreRuns(), null, "19.2.3")),
        ("files s3-direct get without an RGW version", FilesSuiteRunner.Summarize(new FilesScenario(FilesSuite.S3DirectGet, 20 * MiB, FilesSuite.S3Store), PeerRuns(firstByte: true), null, null)),
        ("files failed, no run", FilesSuiteRunner.Summarize(new FilesScenario(FilesSuite.Get, 20 * MiB, FilesSuite.S3Store), [], "RGW (the S3 server) is not available: not started", null)),

        ("tus upload 16 MiB chunks", TusSuiteRunner.Summarize(new TusScenario(TusSuite.Upload, 20 * MiB, TusSuite.GoalChunkBytes), TransferRuns(instructions: true, firstByte: false, disk: 0), null)),
        ("tus node peer", TusSuiteRunner.Summarize(new TusScenario(TusSuite.NodePeer, 20 * MiB, TusSuite.GoalChunkBytes), PeerRuns(firstByte: false), null)),
        ("tus put, A/A copy", TusSuiteRunner.Summarize(new TusScenario(TusSuite.Put, 20 * MiB, null, AaCopy: true), TransferRuns(instructions: false, firstByte: false, disk: 0), null)),
        ("tus failed", TusSuiteRunner.Summarize(new TusScenario(TusSuite.NodePeer, 20 * MiB, TusSuite.GoalChunkBytes), [], "the tus peer did not start.")),

        ("json stj, published", JsonSuiteRunner.Summarize(new JsonScenario(JsonSuite.Stj, 2, 80_000, new PublishedFigure(4, "s", 2, "System.Text.Json")), JsonRuns(disk: 512), null)),
        ("json copy, disk unknown", JsonSuiteRunner.Summarize(new JsonScenario(JsonSuite.NewtonsoftBuffered, 1, 80_000, AaCopy: true), JsonRuns(disk: -1), null)),
        ("json failed", JsonSuiteRunner.Summarize(new JsonScenario(JsonSuite.StjStream, 1, 80_000), [], "body was not the records")),

        ("static engine, counters and series", StaticSuiteRunner.Summarize(
            new StaticScenario(StaticSuite.Freight, 4096, 32, Published: new PublishedFigure(390_000, "req/s", 4, "after the change")), EngineRounds(), RuntimeSamples())),
        ("static wrk", StaticSuiteRunner.Summarize(new StaticScenario(StaticSuite.Freight, 4096, 32, StaticScenario.Wrk), WrkRounds(), RuntimeSamples())),
        ("static nginx peer", StaticSuiteRunner.Summarize(new StaticScenario(StaticSuite.Nginx, 131072, 32), PeerRounds(), RuntimeSamples())),
        ("static rows before the counters", StaticSuiteRunner.Summarize(new StaticScenario(StaticSuite.StaticFiles, 4096, 32, AaCopy: true), EngineRounds(), [])),
        ("static failed", StaticSuiteRunner.Summarize(new StaticScenario(StaticSuite.ResultsFile, 4096, 32), new StaticSuiteRunner.ScenarioRuns { Failure = "no response in 1 s (refused)" }, [])),

        ("threads ramp", ThreadsSuiteRunner.Summarize(new ThreadsScenario("threads/delay", 1000, 1, 64, 4, new PublishedFigure(1, "s", 3, "await Task.Delay")), Ramp(onlyOk: true), RuntimeSamples(), Start)),
        ("threads non-200", ThreadsSuiteRunner.Summarize(new ThreadsScenario("threads/sleep", 1000, 1, 64, 4), Ramp(onlyOk: false), [], Start)),
    ];

    private static RuntimeSnapshot Server(double cpu, long allocated, int gen0, int threads, long disk, long workingSet) =>
        new(cpu, allocated, gen0, gen0 / 2, gen0 / 4, 0, workingSet, threads, 0, 0, 0, disk);

    /// <summary>Three runs of 20 MiB transfers against a Freight server, with awkward figures.</summary>
    private static List<RunSample> TransferRuns(bool instructions, bool firstByte, long disk) =>
    [
        new(3 * 20 * MiB, 3, 0.071, firstByte ? 0.0031 : null, 0.0413, 3_100_007, Server(10.0, 1_000_000, 4, 9, 100, 50_000_000), Server(10.0377, 1_250_013, 5, 11, disk < 0 ? -1 : 100 + disk, 52_000_000), ServerInstructions: instructions ? 1_900_000_001 : null),
        new(4 * 20 * MiB, 4, 0.093, firstByte ? 0.0029 : null, 0.0561, 4_200_011, Server(11.0, 1_300_000, 5, 11, 200, 52_000_000), Server(11.0491, 1_610_017, 7, 12, disk < 0 ? -1 : 200 + disk, 51_000_000), ServerInstructions: instructions ? 2_600_000_003 : null),
        new(2 * 20 * MiB, 2, 0.049, firstByte ? 0.0047 : null, 0.0297, 2_050_003, Server(12.0, 1_700_000, 7, 12, 300, 51_000_000), Server(12.0263, 1_900_019, 8, 10, disk < 0 ? -1 : 300 + disk, 53_500_000), ServerInstructions: instructions ? 1_300_000_007 : null),
    ];

    /// <summary>Two runs against a peer: its CPU and working set alone, in the server snapshots' shape.</summary>
    private static List<RunSample> PeerRuns(bool firstByte) =>
    [
        new(5 * 20 * MiB, 5, 0.081, firstByte ? 0.0011 : null, 0.0522, 5_000_001, ServerMetrics.PeerSnapshot(3.5, 9_000_000), ServerMetrics.PeerSnapshot(3.5113, 9_100_000)),
        new(6 * 20 * MiB, 6, 0.097, firstByte ? 0.0013 : null, 0.0633, 6_000_007, ServerMetrics.PeerSnapshot(4.0, 9_100_000), ServerMetrics.PeerSnapshot(4.0141, 9_050_000)),
    ];

    /// <summary>Two runs through Freight on the S3 store: the server's CPU includes the store's, kept apart too.</summary>
    private static List<RunSample> StoreRuns() =>
    [
        new(1024 * MiB, 1, 0.71, null, 0.213, 1_000_003, Server(20.0, 5_000_000, 9, 10, 0, 80_000_000), Server(20.913, 5_400_001, 9, 10, 0, 81_000_000), StoreCpuSeconds: 0.611),
        new(1024 * MiB, 1, 0.67, null, 0.207, 1_000_011, Server(21.0, 5_500_000, 9, 10, 0, 81_000_000), Server(21.877, 5_900_003, 10, 11, 0, 80_500_000), StoreCpuSeconds: 0.593),
    ];

    /// <summary>The probe's runs: no server, no instructions.</summary>
    private static List<RunSample> ProbeRuns() =>
    [
        new(50 * 20 * MiB, 50, 0.333, null, 0.171, 1_000, null, null),
        new(52 * 20 * MiB, 52, 0.341, null, 0.177, 1_100, null, null),
        new(49 * 20 * MiB, 49, 0.337, null, 0.169, 900, null, null),
    ];

    private static List<JsonSuiteRunner.JsonRunSample> JsonRuns(long disk) =>
    [
        new([new(25_000_017, 0.91, 0.0123), new(25_000_017, 0.87, 0.0119), new(25_000_017, 0.95, 0.0131)], 1.43, 0.377, Server(30.0, 100_000_000, 20, 14, disk < 0 ? -1 : 1_000, 150_000_000), Server(31.117, 190_000_003, 26, 16, disk < 0 ? -1 : 1_000 + disk, 160_000_000)),
        new([new(25_000_017, 0.83, 0.0111), new(25_000_017, 0.99, 0.0141)], 1.21, 0.311, Server(32.0, 200_000_000, 27, 16, disk < 0 ? -1 : 2_000, 160_000_000), Server(32.771, 260_000_007, 31, 15, disk < 0 ? -1 : 2_000 + disk, 155_000_000)),
    ];

    private static LatencyHistogram Histogram(params long[] microseconds)
    {
        var histogram = new LatencyHistogram();
        foreach (var value in microseconds)
        {
            histogram.Record(value);
        }

        return histogram;
    }

    private static MeasuredWindow Window(int round) => new(
        Server(40.0 + round, 300_000_000L + (round * 10_000_000L), 40 + round, 12, 0, 170_000_000),
        Server(40.61 + round, 309_000_013L + (round * 10_000_000L), 43 + round, 14, 0, 172_000_000),
        Start.AddSeconds(10 * round),
        Start.AddSeconds((10 * round) + 2.5));

    private static IReadOnlyList<LoadSecond> Seconds(int completions) =>
    [
        new(0, 1.0, completions, 0, 0, 0.00041, 0.0019, 32, 32),
        new(1, 1.0, completions + 7, 1, 0, 0.00043, 0.0021, 32, 32),
        new(2, 0.5, completions / 2, 0, 0, 0.00040, 0.0018, 0, 0),
    ];

    private static StaticSuiteRunner.ScenarioRuns EngineRounds()
    {
        var runs = new StaticSuiteRunner.ScenarioRuns { FirstRequestSeconds = 0.0123 };
        runs.Runs.Add(new StaticSuiteRunner.StaticRun(31_000.7, 31_000.7 * 4096, 77_501, Histogram(410, 420, 450, 900, 1900, 5000), 0.0009,
            new Dictionary<int, long> { [200] = 77_500, [503] = 1 }, 1, 0, 2, 0, Window(0))
        {
            ClientCpuSeconds = 1.31,
            PerSecond = Seconds(31_003),
            StartedAt = Start,
        });
        runs.Runs.Add(new StaticSuiteRunner.StaticRun(29_500.3, 29_500.3 * 4096, 73_750, Histogram(400, 430, 460, 800, 2100), 0.0011,
            new Dictionary<int, long> { [200] = 73_750 }, 0, 1, 0, 0, Window(1))
        {
            ClientCpuSeconds = 1.27,
            PerSecond = Seconds(29_497),
            StartedAt = Start.AddSeconds(10),
        });
        return runs;
    }

    private static StaticSuiteRunner.ScenarioRuns WrkRounds()
    {
        var runs = new StaticSuiteRunner.ScenarioRuns();
        foreach (var (rate, round) in new[] { (35_000.5, 0), (36_100.25, 1), (34_200.75, 2) })
        {
            runs.Runs.Add(new StaticSuiteRunner.StaticRun(rate, rate * 4096 / 1.0, (long)(rate * 2.5), null, null, new Dictionary<int, long> { [200] = (long)(rate * 2.5) }, 0, 0, 0, null, Window(round))
            {
                ClientCpuSeconds = 0.9 + round,
                WrkLatency = new Percentiles(0.0004 + (round * 1e-5), 0.0006, 0.0008, 0.002, 0.009) { Mean = 0.00051 },
                StartedAt = Start.AddSeconds(10 * round),
            });
        }

        return runs;
    }

    private static StaticSuiteRunner.ScenarioRuns PeerRounds()
    {
        var runs = new StaticSuiteRunner.ScenarioRuns();
        for (var round = 0; round < 2; round++)
        {
            runs.Runs.Add(new StaticSuiteRunner.StaticRun(9_000.5 + round, (9_000.5 + round) * 131072, 22_501 + round, Histogram(900, 1000, 1100 + round, 3000), null,
                new Dictionary<int, long> { [200] = 22_501 + round }, 0, 0, 0, 0, null)
            {
                ClientCpuSeconds = 1.1 + round,
                PerSecond = Seconds(9_001),
                StartedAt = Start.AddSeconds(10 * round),
                PeerWindow = (
                    new ProcessStatSnapshot(4242, 1, 5.0 + round, 12_000_000, Start.AddSeconds(10 * round)),
                    new ProcessStatSnapshot(4242, 1, 5.77 + round, 12_500_000 + round, Start.AddSeconds((10 * round) + 2.5))),
            });
        }

        return runs;
    }

    /// <summary>The server's in-process samples, one a second over the two first rounds (and one outside every round).</summary>
    private static List<RuntimeSample> RuntimeSamples()
    {
        var samples = new List<RuntimeSample>();
        var sequence = 0;
        foreach (var offset in new[] { 0.6, 1.6, 2.4, 5.0, 10.5, 11.5, 12.4 })
        {
            samples.Add(new RuntimeSample(sequence, Start.AddSeconds(offset), offset, 40 + (offset / 10), 61.5 + sequence, 12 + (sequence % 3), sequence % 2, 1_000 * sequence,
                30 + sequence, 171_000_000 + (sequence * 1_000), 90_000_000, 41 + sequence, 20, 10, sequence, 300_000_000L + (sequence * 1_000_000L), -1));
            sequence++;
        }

        return samples;
    }

    private static LoadResult Ramp(bool onlyOk)
    {
        var histogram = Histogram(1_000_100, 1_000_300, 1_001_000, 1_020_000);
        return new LoadResult
        {
            Mode = LoadMode.ClosedLoop,
            StopReason = LoadStopReason.Duration,
            Elapsed = TimeSpan.FromSeconds(4.2),
            Responses = 97,
            StatusCodes = onlyOk ? new Dictionary<int, long> { [200] = 97 } : new Dictionary<int, long> { [200] = 90, [500] = 7 },
            SocketErrors = 1,
            Timeouts = 2,
            Errors = 3,
            Dropped = 0,
            CancelledAtEnd = 4,
            BodyBytes = 97 * 2,
            RequestsPerSecond = 97 / 4.2,
            Latency = histogram.Summarize(),
            Histogram = histogram,
            Series = Seconds(24),
        };
    }
}
