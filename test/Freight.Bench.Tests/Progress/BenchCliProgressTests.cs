using System.Diagnostics;
using System.Text.Json;

namespace Freight.Bench.Tests.Progress;

/// <summary>The real <c>freight bench</c> with its stdout redirected, as in CI: plain lines, and the HTML report at the end.</summary>
public sealed class BenchCliProgressTests
{
    // The smallest real run: the TCP ceiling and download/freight's rows (http, https, h2, stock pool), one short run each.
    private static readonly string[] SmallRun = ["bench", "--suite", "transfer", "--quick", "--filter", "download/freight", "--runs", "1", "--run-seconds", "0.1", "--warmup-seconds", "0.05"];

    [Fact]
    public async Task BenchCli_StdoutRedirected_PlainLinesWithoutControlSequencesAndHtmlReportBesideJson()
    {
        using var directory = new TemporaryDirectory("freight-bench-cli-");
        var json = directory.Combine("result.json");

        var (exit, stdout, stderr) = await RunFreightAsync([.. SmallRun, "--json", json]);

        Assert.True(exit == 0, $"exit {exit}\nstdout:\n{stdout}\nstderr:\n{stderr}");
        Assert.All(stdout, c => Assert.True(c == '\n' || c >= ' ', $"control character U+{(int)c:X4} in:\n{stdout}"));
        Assert.Matches(@"\ntransfer suite: [0-9]+ scenarios × 1 run of ≥0\.1 s, ", stdout);
        Assert.Contains("transfer: download/freight (http h1 memory 64K) warm-up …\n", stdout, StringComparison.Ordinal);
        Assert.Contains("transfer run 1/1 done in ", stdout, StringComparison.Ordinal);
        Assert.Contains("transfer suite done in ", stdout, StringComparison.Ordinal);

        var html = directory.Combine("result.html");
        Assert.Contains($"report: {html}\n", stdout, StringComparison.Ordinal);
        var page = await File.ReadAllTextAsync(html);
        using var document = JsonDocument.Parse(await File.ReadAllTextAsync(json));
        var ids = document.RootElement.GetProperty("results").EnumerateArray().Select(r => r.GetProperty("scenario").GetString()!).Distinct().ToList();
        // download/freight#a: the transfer suite's A/A copy, which the filter keeps with its original.
        Assert.Equal(["download/freight", "download/freight#a", "tcp/loopback"], ids.Order(StringComparer.Ordinal));
        Assert.All(ids, id => Assert.Contains(id, page, StringComparison.Ordinal));
    }

    [Fact]
    public async Task BenchCli_NoReport_WritesTheJsonOnly()
    {
        using var directory = new TemporaryDirectory("freight-bench-cli-");
        var json = directory.Combine("result.json");

        var (exit, stdout, stderr) = await RunFreightAsync(["bench", "--suite", "transfer", "--quick", "--filter", "tcp/loopback", "--runs", "1", "--no-progress", "--no-report", "--json", json]);

        Assert.True(exit == 0, $"exit {exit}\nstdout:\n{stdout}\nstderr:\n{stderr}");
        Assert.True(File.Exists(json));
        Assert.Equal(["result.json"], directory.Entries().Select(Path.GetFileName));
        Assert.DoesNotContain("report:", stdout, StringComparison.Ordinal);
    }

    [Fact]
    public async Task BenchCli_OneRun_RunsAndSaysItsGoalsAreReadOffOneFigure()
    {
        using var directory = new TemporaryDirectory("freight-bench-cli-");
        var json = directory.Combine("result.json");

        var (exit, stdout, stderr) = await RunFreightAsync(["bench", "--suite", "transfer", "--quick", "--filter", "tcp/loopback", "--runs", "1", "--no-progress", "--no-report", "--json", json]);

        Assert.True(exit == 0, $"exit {exit}\nstdout:\n{stdout}\nstderr:\n{stderr}");
        Assert.StartsWith("note: --runs 1: a goal's interval needs 2 runs a row; with one, each goal is read off one figure (\"met (no interval)\" or \"MISSED (no interval)\")", stderr, StringComparison.Ordinal);
        Assert.Contains("\ntransfer: 1 run, none added (--max-seconds 0)\n", stdout.ReplaceLineEndings("\n"), StringComparison.Ordinal);
        Assert.True(File.Exists(json));
    }

    /// <summary>Runs the built CLI (<c>dotnet Freight.Cli.dll ARGS</c>) as users do, stdout and stderr redirected.</summary>
    private static async Task<(int Exit, string Stdout, string Stderr)> RunFreightAsync(string[] args)
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

        // A terminal's TERM must not matter once stdout is redirected.
        start.Environment["TERM"] = "xterm-256color";

        // Guards against a hang; nothing here asserts on time.
        using var patience = new CancellationTokenSource(TimeSpan.FromMinutes(5));
        using var process = Process.Start(start)!;
        var stdout = process.StandardOutput.ReadToEndAsync(patience.Token);
        var stderr = process.StandardError.ReadToEndAsync(patience.Token);
        try
        {
            await process.WaitForExitAsync(patience.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw;
        }

        return (process.ExitCode, await stdout, await stderr);
    }
}
