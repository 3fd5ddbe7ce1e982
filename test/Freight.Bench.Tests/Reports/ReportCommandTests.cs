using System.Diagnostics;
using Freight.Bench.Reports;
using Freight.Bench.Tests.Cli;

namespace Freight.Bench.Tests.Reports;

/// <summary><c>freight report</c>'s arguments, outputs and exit codes: 0 written, 1 a file unreadable or unwritable, 2 a usage error.</summary>
public sealed class ReportCommandTests
{
    [Fact]
    public async Task RunAsync_EveryOutput_WritesEachAndExitsZero()
    {
        var directory = TempDirectory();
        try
        {
            var html = Path.Combine(directory, "r.html");
            var markdown = Path.Combine(directory, "r.md");
            var csv = Path.Combine(directory, "csv");

            var (exit, stdout, stderr) = await RunAsync(ReportFixture.ResultPath, "--html", html, "--markdown", markdown, "--csv", csv);

            Assert.Equal(0, exit);
            Assert.Equal("", stderr);
            Assert.Equal($"html: {html}\nmarkdown: {markdown}\ncsv: {csv} (14 files)\n", stdout.ReplaceLineEndings("\n"));
            Assert.StartsWith("<!DOCTYPE html>", await File.ReadAllTextAsync(html), StringComparison.Ordinal);
            Assert.StartsWith("# Freight bench report — report.json\n", await File.ReadAllTextAsync(markdown), StringComparison.Ordinal);
            Assert.Equal(14, Directory.GetFiles(csv, "*.csv").Length);
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    [Theory]
    [InlineData("no output", "RESULT")]
    [InlineData("no file", "--html", "x.html")]
    [InlineData("unknown option", "RESULT", "--pdf", "x.pdf")]
    [InlineData("option without value", "RESULT", "--html")]
    [InlineData("bad noise", "RESULT", "--markdown", "x.md", "--noise", "-1")]
    public async Task RunAsync_UsageError_ExitsTwoWithErrorAndUsage(string why, params string[] args)
    {
        var (exit, stdout, stderr) = await RunAsync([.. args.Select(a => a == "RESULT" ? ReportFixture.ResultPath : a)]);

        Assert.True(exit == 2, $"{why}: exit {exit}");
        Assert.Equal("", stdout);
        Assert.StartsWith("error: ", stderr, StringComparison.Ordinal);
        Assert.Contains("usage: freight report --help", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RunAsync_NoArguments_ExitsTwoWithUsage()
    {
        var (exit, _, stderr) = await RunAsync();

        Assert.Equal(2, exit);
        Assert.StartsWith("error: ", stderr, StringComparison.Ordinal);
        Assert.Contains("usage: freight report --help", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RunAsync_NotJson_ExitsOneNamingTheFileAndWritesNothing()
    {
        var directory = TempDirectory();
        try
        {
            var path = Path.Combine(directory, "broken.json");
            await File.WriteAllTextAsync(path, "{ \"tool\": \"freight\", \"results\": [ ");
            var html = Path.Combine(directory, "r.html");

            var (exit, stdout, stderr) = await RunAsync(ReportFixture.ResultPath, path, "--html", html);

            Assert.Equal(1, exit);
            Assert.Equal("", stdout);
            Assert.StartsWith($"error: {path}: not a freight bench result file", stderr, StringComparison.Ordinal);
            Assert.False(File.Exists(html));
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    [Fact]
    public async Task RunAsync_UnwritableOutput_ExitsOneNamingIt()
    {
        var html = Path.Combine(Path.GetTempPath(), $"freight-missing-dir-{Guid.NewGuid():N}", "r.html");

        var (exit, _, stderr) = await RunAsync(ReportFixture.ResultPath, "--html", html);

        Assert.Equal(1, exit);
        Assert.StartsWith($"error: cannot write {html}: ", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task FreightReport_MissingFile_ExitsOneWithErrorLine()
    {
        var (exit, stdout, stderr) = await RunFreightAsync("report", "missing.json", "--markdown", Path.Combine(Path.GetTempPath(), "never.md"));

        Assert.Equal(1, exit);
        Assert.Equal("", stdout);
        Assert.Equal("error: missing.json: file not found", stderr.TrimEnd());
    }

    [Fact]
    public async Task FreightReport_Help_PrintsUsageAndExitsZero()
    {
        var (exit, stdout, _) = await RunFreightAsync("report", "--help");

        Assert.Equal(0, exit);
        Assert.Contains("freight report <FILES>... [options]", stdout, StringComparison.Ordinal);
        Assert.All(["--html", "--markdown", "--csv", "--svg", "--verdicts", "--noise"], option => Assert.Contains(option, stdout, StringComparison.Ordinal));
    }

    [Fact]
    public async Task FreightHelp_ListsReport()
    {
        var (exit, stdout, _) = await RunFreightAsync("--help");

        Assert.Equal(0, exit);
        Assert.Contains("\n  report <FILES>  ", stdout.ReplaceLineEndings("\n"), StringComparison.Ordinal);
    }

    private static Task<(int Exit, string Stdout, string Stderr)> RunAsync(params string[] args) => FreightCli.RunAsync(["report", .. args]);

    private static string TempDirectory()
    {
        var directory = Path.Combine(Path.GetTempPath(), $"freight-report-test-{Guid.NewGuid():N}");
        Directory.CreateDirectory(directory);
        return directory;
    }

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
