using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;

namespace Freight.Bench.Tests.Load.Command;

/// <summary>
/// <c>freight load --runs N</c> end to end, the built CLI against the test app: N runs one after another, each one's
/// figures kept in the row (what <c>freight compare</c> draws its intervals from), the live output naming the run, a
/// bound on N, and a Ctrl+C that keeps the runs that completed.
/// </summary>
public sealed class LoadRunsTests
{
    private static readonly string ThisProcess = Environment.ProcessId.ToString(CultureInfo.InvariantCulture);

    [Fact]
    public async Task Get_Runs3_RowHoldsEachRunsRatesLatenciesAndCosts()
    {
        await using var server = await LoadTargetServer.StartAsync();

        // 10 × 8 MiB a run: 80 MiB, over the 64 MiB a CPU-per-GiB figure needs, in every run.
        var run = await LoadCli.RunAsync(server.Url("/memory").ToString(), "-c", "2", "-n", "10", "--runs", "3", "--server-pid", ThisProcess, "--no-progress");

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        var row = run.Row;
        Assert.Equal(3, row.Runs);
        Assert.Equal(3, run.Report!.Settings!.Runs);
        Assert.Equal(30, row.StatusCodes!["200"]);
        Assert.Equal(30, row.Transfers);
        Assert.Equal(3, row.RequestsPerSecond!.Samples!.Count);
        Assert.Equal(3, row.BytesPerSecond!.Samples!.Count);
        Assert.Equal(row.RequestsPerSecond.Samples.Order().ElementAt(1), row.RequestsPerSecond.Median);
        Assert.Equal(3, row.LatencySeconds!.P50Runs!.Count);
        Assert.Equal(3, row.LatencySeconds.P99Runs!.Count);
        Assert.Equal(3, row.Client!.CpuSecondsPerGiBSamples!.Count);
        Assert.Equal(3, row.Server!.CpuSecondsPerGiBSamples!.Count);

        // The summary says how many runs and the spread of each figure over them.
        Assert.Contains(", 3 runs, ", run.Stdout, StringComparison.Ordinal);
        Assert.Matches(new Regex(@"\nruns       3, median \(min–max\): req/s [0-9,.]+ \([0-9,.]+–[0-9,.]+\), MiB/s [0-9,.]+ \([0-9,.]+–[0-9,.]+\), client CPU s/GiB .+, server CPU s/GiB "), run.Stdout);
    }

    [Fact]
    public async Task Get_Runs2_ProgressLineNamesTheRun()
    {
        await using var server = await LoadTargetServer.StartAsync();

        // Progress on (stderr is not a terminal here: one line a second); each run lasts over a second, so each has a line.
        var run = await LoadCli.RunAsync(server.Url("/payload/4096").ToString(), "-c", "1", "-d", "1.5", "--runs", "2");

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        Assert.Equal(2, run.Row.Runs);
        Assert.Matches(new Regex(@"(^|\n)run 1/2 +1 s "), run.Stderr);
        Assert.Matches(new Regex(@"\nrun 2/2 +1 s "), run.Stderr);
    }

    [Theory]
    [InlineData("0")]
    [InlineData("31")]
    [InlineData("many")]
    public async Task Runs_OutOfRange_UsageErrorNamingTheBound(string runs)
    {
        var run = await LoadCli.RunAsync("http://127.0.0.1:1/", "-n", "1", "--runs", runs);

        Assert.Equal(2, run.Exit);
        Assert.Contains($"--runs needs a number of runs from 1 to 30, not '{runs}'.", run.Stderr, StringComparison.Ordinal);
        Assert.Null(run.Report);
    }

    [Fact]
    public async Task Runs_CtrlCInTheSecondRunOrLater_KeepsOnlyTheRunsThatCompleted()
    {
        await using var server = await LoadTargetServer.StartAsync();
        var json = Path.Combine(Path.GetTempPath(), $"freight-load-{Guid.NewGuid():N}.json");
        try
        {
            // 2,000 requests a run, 30 runs: Ctrl+C once 3,000 were served, in the second run or a later one, long before the 30th.
            var run = await LoadCli.InterruptAsync(json, () => LoadTargetServer.WaitForPayloadsAsync(3000),
                server.Url("/payload/4096").ToString(), "-c", "2", "-n", "2000", "--runs", "30", "--no-progress");

            var row = run.Row;
            Assert.InRange(row.Runs, 1, 29);

            // Every run kept is whole: the interrupted one is left out.
            Assert.Equal(row.Runs * 2000L, row.StatusCodes!["200"]);
            Assert.Equal(row.Runs, row.RequestsPerSecond!.Samples!.Count);
        }
        finally
        {
            File.Delete(json);
        }
    }

    [Fact]
    public async Task Get_ServerWithoutRuntimeCounters_SeriesHasNoMinusOneAndPayloadIsTheMeanResponse()
    {
        // A server that is not .NET (Python's http.server on port 0): /proc gives its CPU and threads, no runtime counters.
        var directory = Directory.CreateTempSubdirectory("freight-load-python-").FullName;
        await File.WriteAllBytesAsync(Path.Combine(directory, "4k.bin"), new byte[4096]);
        var start = new ProcessStartInfo("python3", ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", directory])
        {
            RedirectStandardOutput = true,
            UseShellExecute = false,
        };
        using var python = Process.Start(start)!;
        try
        {
            // "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
            var line = await python.StandardOutput.ReadLineAsync() ?? "";
            var port = Regex.Match(line, @"port ([0-9]+)").Groups[1].Value;

            var run = await LoadCli.RunAsync($"http://127.0.0.1:{port}/4k.bin", "-c", "1", "-d", "2.5", "--server-pid",
                python.Id.ToString(CultureInfo.InvariantCulture), "--no-progress");

            Assert.True(run.Exit == 0, line + run.Stdout + run.Stderr);
            var series = run.Row.Series!;
            Assert.NotEmpty(series);
            Assert.Contains(series, point => point.ProcessThreads >= 1);
            Assert.All(series, point => Assert.Null(point.ThreadPoolThreads));
            Assert.All(series, point => Assert.Null(point.ThreadPoolQueueLength));

            // A GET sends no body: the run's payload is what each response carried.
            Assert.Equal(4096, run.Report!.Settings!.PayloadBytes);
        }
        finally
        {
            python.Kill();
            await python.WaitForExitAsync();
            Directory.Delete(directory, recursive: true);
        }
    }
}
