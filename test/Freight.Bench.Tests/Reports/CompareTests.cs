using System.Diagnostics;
using System.Text.RegularExpressions;
using Freight.Bench.Reports;
using Freight.Bench.Tests.Cli;

namespace Freight.Bench.Tests.Reports;

/// <summary>
/// <c>freight compare</c> on two hand-made result files (Reports/Fixtures): base.json and new.json share tcp/loopback
/// (no label), download/freight (a transfer row), load/ping (with server counters) and the two static scenarios;
/// upload/iformfile is only in base.json, json/stj only in new.json. Every expected percentage is worked out by hand.
/// </summary>
public sealed class CompareTests
{
    private static readonly string s_fixtures = Path.Combine(AppContext.BaseDirectory, "Reports", "Fixtures");
    private static readonly string s_base = Path.Combine(s_fixtures, "base.json");
    private static readonly string s_new = Path.Combine(s_fixtures, "new.json");

    [Fact]
    public async Task CompareFiles_LoadScenario_ShowsBaseAndChangeWithImprovementMark()
    {
        var text = await CompareFixturesAsync();

        // 89,248 → 101,902 requests/s: 12,654 / 89,248 = +14.18%, higher is better.
        Assert.Equal(["requests/s", "89,248", "101,902 (+14.18%) ✓"], Row(Table(text, "load/ping — 32 conns"), "requests/s"));
    }

    [Fact]
    public async Task CompareFiles_HigherAndLowerIsBetterMetrics_MarkedByDirection()
    {
        var text = await CompareFixturesAsync();
        var load = Table(text, "load/ping — 32 conns");
        var transfer = Table(text, "download/freight — http h1 memory 64K");

        // Lower is better: p99 2.0 → 2.5 ms is a regression, server CPU 0.5 → 0.4 s/GiB an improvement.
        Assert.Equal(["latency p99 (ms)", "2.00", "2.50 (+25.00%) ✗"], Row(load, "latency p99 (ms)"));
        Assert.Equal(["server CPU (s/GiB)", "0.500", "0.400 (-20.00%) ✓"], Row(transfer, "server CPU (s/GiB)"));

        // Higher is better: 2,048 → 2,560 MiB/s is +25%; 3,200 → 3,232 MiB/s is exactly the 1% band, so marked.
        Assert.Equal(["throughput (MiB/s)", "2,048", "2,560 (+25.00%) ✓"], Row(transfer, "throughput (MiB/s)"));
        Assert.Equal(["throughput (MiB/s)", "3,200", "3,232 (+1.00%) ✓"], Row(Table(text, "tcp/loopback — payloadBytes=1048576, scheme=tcp"), "throughput (MiB/s)"));
    }

    [Fact]
    public async Task CompareFiles_ChangeInsideNoiseBandOrWithoutDirection_IsNotMarked()
    {
        var text = await CompareFixturesAsync();

        // 40 → 40.2 KiB is +0.50%, inside the 1% band; CPU % 150 → 180 has no better direction.
        Assert.Equal(["server allocated per transfer (KiB)", "40.0", "40.2 (+0.50%)"], Row(Table(text, "download/freight — http h1 memory 64K"), "server allocated per transfer (KiB)"));
        Assert.Equal(["CPU usage (%)", "150", "180 (+20.00%)"], Row(Table(text, "load/ping — 32 conns"), "CPU usage (%)"));
    }

    [Fact]
    public async Task CompareFiles_NoiseOptionWidened_LeavesSmallChangeUnmarked()
    {
        var text = CompareReport.CompareFiles(await LoadFixturesAsync(), noisePercent: 5);

        Assert.Equal(["requests/s", "50,000", "52,000 (+4.00%)"], Row(Table(text, "static/staticfiles — 4 KiB, 32 conns"), "requests/s"));
    }

    [Fact]
    public async Task CompareFiles_BaseValueZero_ShowsAbsoluteDifferenceInsteadOfPercent()
    {
        var text = await CompareFixturesAsync();
        var load = Table(text, "load/ping — 32 conns");

        Assert.Equal(["bad responses", "0", "3 (+3) ✗"], Row(load, "bad responses"));
        Assert.Equal(["socket errors", "0", "0 (+0)"], Row(load, "socket errors"));
    }

    [Fact]
    public async Task CompareFiles_MetricWithoutValueInAnyFile_HasNoRow()
    {
        var text = await CompareFixturesAsync();
        var transfer = Table(text, "download/freight — http h1 memory 64K");
        var load = Table(text, "load/ping — 32 conns");

        Assert.DoesNotContain(transfer, l => l.StartsWith("requests/s", StringComparison.Ordinal) || l.StartsWith("CPU usage", StringComparison.Ordinal));
        Assert.DoesNotContain(load, l => l.StartsWith("throughput", StringComparison.Ordinal) || l.StartsWith("TTFB", StringComparison.Ordinal));
        Assert.Equal(["metric", "base.json", "new.json"], Columns(transfer[1]));
        Assert.Matches("^-+$", transfer[2]);
    }

    [Fact]
    public async Task CompareFiles_ScenarioInOneFile_IsListedNotTabled()
    {
        var text = await CompareFixturesAsync();

        Assert.Contains("only in base.json: upload/iformfile — http h1 memory 64K\n", text, StringComparison.Ordinal);
        Assert.Contains("only in new.json: json/stj — 80k records c=1\n", text, StringComparison.Ordinal);
        Assert.DoesNotContain("upload/iformfile — http h1 memory 64K\nmetric", text, StringComparison.Ordinal);
        Assert.DoesNotContain("json/stj — 80k records c=1\nmetric", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task CompareFiles_Markdown_HasHeadingHeaderAndAlignmentRows()
    {
        var text = CompareReport.CompareFiles(await LoadFixturesAsync(), markdown: true).ReplaceLineEndings("\n");

        Assert.Contains(
            "### load/ping — 32 conns\n\n" +
            "| metric | base.json | new.json |\n" +
            "| :--- | ---: | ---: |\n" +
            "| CPU usage (%) | 150 | 180 (+20.00%) |\n",
            text,
            StringComparison.Ordinal);
        Assert.Contains("| requests/s | 89,248 | 101,902 (+14.18%) ✓ |\n", text, StringComparison.Ordinal);
        Assert.Contains("- only in base.json: upload/iformfile — http h1 memory 64K\n", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task CompareScenarios_OneFile_ColumnsAreScenariosMatchedByLabel()
    {
        var sources = await LoadFixturesAsync();

        var text = CompareReport.CompareScenarios([sources[0]], ["static/staticfiles", "static/freight"]);

        // 50,000 → 60,000 requests/s is +20%; p99 4 → 3 ms is -25%, lower is better.
        var table = Table(text, "static/staticfiles vs static/freight — 4 KiB, 32 conns");
        Assert.Equal(["metric", "static/staticfiles", "static/freight"], Columns(table[1]));
        Assert.Equal(["requests/s", "50,000", "60,000 (+20.00%) ✓"], Row(table, "requests/s"));
        Assert.Equal(["latency p99 (ms)", "4.00", "3.00 (-25.00%) ✓"], Row(table, "latency p99 (ms)"));
        Assert.DoesNotContain("load/ping", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task CompareScenarios_SeveralFiles_OneTablePerFileNamedInHeading()
    {
        var text = CompareReport.CompareScenarios(await LoadFixturesAsync(), ["static/staticfiles", "static/freight"], markdown: true).ReplaceLineEndings("\n");

        // new.json: 52,000 → 61,000 is 9,000 / 52,000 = +17.31%.
        Assert.Contains("### static/staticfiles vs static/freight — 4 KiB, 32 conns (base.json)\n", text, StringComparison.Ordinal);
        Assert.Contains("### static/staticfiles vs static/freight — 4 KiB, 32 conns (new.json)\n", text, StringComparison.Ordinal);
        Assert.Contains("| requests/s | 52,000 | 61,000 (+17.31%) ✓ |\n", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task CompareScenarios_ScenarioNotInFile_IsListedWithoutTable()
    {
        var sources = await LoadFixturesAsync();

        var text = CompareReport.CompareScenarios([sources[0]], ["static/staticfiles", "static/nope"]).ReplaceLineEndings("\n");

        Assert.Contains("not in base.json: static/nope\n", text, StringComparison.Ordinal);
        Assert.Contains("only in static/staticfiles: 4 KiB, 32 conns\n", text, StringComparison.Ordinal);
        Assert.DoesNotContain("\nmetric", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RunAsync_OutputFile_WritesTheSameTables()
    {
        var path = Path.Combine(Path.GetTempPath(), $"freight-compare-test-{Guid.NewGuid():N}.md");
        try
        {
            var (exit, _, error) = await FreightCli.RunAsync(["compare", s_base, s_new, "--markdown", "--output", path]);

            Assert.Equal(0, exit);
            Assert.Equal("", error);
            Assert.Equal(CompareReport.CompareFiles(await LoadFixturesAsync(), markdown: true), await File.ReadAllTextAsync(path));
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Theory]
    [InlineData("--bogus")]
    [InlineData("--scenarios", "static/freight")]
    [InlineData("--noise", "-1")]
    [InlineData("--output")]
    public async Task RunAsync_InvalidArguments_ExitsTwoWithError(params string[] options)
    {
        var (exit, _, error) = await FreightCli.RunAsync(["compare", s_base, s_new, .. options]);

        Assert.Equal(2, exit);
        Assert.StartsWith("error: ", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RunAsync_NotAResultFile_ExitsTwoNamingTheFile()
    {
        var path = Path.Combine(Path.GetTempPath(), $"freight-compare-test-{Guid.NewGuid():N}.json");
        await File.WriteAllTextAsync(path, "{ \"tool\": \"wrk\" ");
        try
        {
            var (exit, _, error) = await FreightCli.RunAsync(["compare", s_base, path]);

            Assert.Equal(2, exit);
            Assert.Equal($"error: {path}: not a Freight bench result (not valid JSON at line 1, byte 17)\n", error);
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public async Task FreightCompare_EmptyFile_ExitsTwoSayingItIsEmpty()
    {
        var path = Path.Combine(Path.GetTempPath(), $"freight-compare-test-{Guid.NewGuid():N}.json");
        await File.WriteAllTextAsync(path, "");
        try
        {
            var (exit, stdout, error) = await FreightCli.RunAsync(["compare", path, s_base]);

            Assert.Equal(2, exit);
            Assert.Equal("", stdout);
            Assert.Equal($"error: {path}: not a Freight bench result (the file is empty)\n", error);
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public async Task FreightCompare_DirectoryForAResult_ExitsTwoSayingItIsADirectory()
    {
        var directory = Path.GetTempPath().TrimEnd(Path.DirectorySeparatorChar);

        var (exit, stdout, stderr) = await FreightCli.RunAsync(["compare", s_base, directory]);

        Assert.Equal(2, exit);
        Assert.Equal("", stdout);
        Assert.Equal($"error: {directory}: is a directory, not a Freight bench result file\n", stderr);
    }

    [Fact]
    public async Task FreightCompare_MissingFile_ExitsTwoWithErrorLine()
    {
        var (exit, stdout, stderr) = await RunFreightAsync("compare", s_base, "missing.json");

        Assert.Equal(2, exit);
        Assert.Equal("", stdout);
        Assert.Equal("error: missing.json: file not found", stderr.TrimEnd());
    }

    [Fact]
    public async Task FreightCompare_TwoFiles_ExitsZeroWithTables()
    {
        var (exit, stdout, stderr) = await RunFreightAsync("compare", s_base, s_new);

        Assert.Equal(0, exit);
        Assert.Equal("", stderr);
        Assert.Equal(await CompareFixturesAsync(), stdout.ReplaceLineEndings("\n"));
    }

    [Fact]
    public async Task FreightCompare_Help_PrintsUsageAndExitsZero()
    {
        var (exit, stdout, _) = await RunFreightAsync("compare", "--help");

        Assert.Equal(0, exit);
        Assert.Contains("freight compare <FILES>... [options]", stdout, StringComparison.Ordinal);
        Assert.All(["--scenarios", "--markdown", "--noise", "--output"], option => Assert.Contains(option, stdout, StringComparison.Ordinal));
    }

    private static async Task<CompareSource[]> LoadFixturesAsync()
    {
        var sources = new List<CompareSource>();
        foreach (var path in new[] { s_base, s_new })
        {
            var (report, error) = await CompareCommand.LoadAsync(path);
            Assert.True(report is not null, error);
            sources.Add(new CompareSource(Path.GetFileName(path), report));
        }

        return [.. sources];
    }

    private static async Task<string> CompareFixturesAsync() =>
        CompareReport.CompareFiles(await LoadFixturesAsync()).ReplaceLineEndings("\n");

    /// <summary>The lines of the plain-text table under <paramref name="title"/>: title, header, dashes, rows.</summary>
    private static string[] Table(string text, string title)
    {
        var block = text.Split("\n\n").SingleOrDefault(b => b.StartsWith(title + "\n", StringComparison.Ordinal));
        Assert.True(block is not null, $"no table '{title}' in:\n{text}");
        return block.Split('\n');
    }

    private static string[] Row(string[] table, string metric) =>
        Columns(Assert.Single(table, l => l.StartsWith(metric + "  ", StringComparison.Ordinal)));

    // Columns are two or more spaces apart; a cell has single spaces only.
    private static string[] Columns(string line) => Regex.Split(line.Trim(), @"\s{2,}");

    /// <summary>Runs the built CLI (<c>dotnet Freight.Cli.dll ARGS</c>) as users do; returns its exit code and output.</summary>
    private static async Task<(int Exit, string Stdout, string Stderr)> RunFreightAsync(params string[] args)
    {
        var muxer = Path.GetFileNameWithoutExtension(Environment.ProcessPath) == "dotnet" ? Environment.ProcessPath! : "dotnet";
        var start = new ProcessStartInfo(muxer)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "Freight.Cli.dll"));
        foreach (var arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        // Guards against a hang; nothing here asserts on time.
        using var patience = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        using var process = Process.Start(start)!;
        var stdout = process.StandardOutput.ReadToEndAsync(patience.Token);
        var stderr = process.StandardError.ReadToEndAsync(patience.Token);
        await process.WaitForExitAsync(patience.Token);
        return (process.ExitCode, await stdout, await stderr);
    }
}
