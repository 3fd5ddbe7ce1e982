using System.Diagnostics;
using Freight.Bench.Reports;
using Freight.Bench.Tests.Cli;

namespace Freight.Bench.Tests.Reports;

/// <summary><c>freight report</c>'s arguments, outputs and exit codes: 0 written, 2 a usage error or a file unreadable or unwritable (as compare).</summary>
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

    [Theory]
    [InlineData("", "the file is empty")]
    [InlineData("{ \"tool\": \"freight\", \"results\": [ {\"scenario\": \n", "not valid JSON at line 2, byte 1")]
    [InlineData("  \n", "not valid JSON at line 2, byte 1")]
    [InlineData("hello", "not valid JSON at line 1, byte 1")]
    [InlineData("{ \"results\": [ {} ] }", "missing 'scenario', 'parameters' at $.results[0], line 1, byte 18")]
    [InlineData("{ \"results\": [ { \"scenario\": \"a/b\", \"runs\": \"five\" } ] }", "a missing field or a value of the wrong type at $.results[0].runs, line 1, byte 51")]
    [InlineData("null", "no results")]
    public async Task FreightReport_CorruptOrEmptyResult_NamesTheFileAndWhyWithoutDotNetInternals(string content, string reason)
    {
        var directory = TempDirectory();
        try
        {
            var path = Path.Combine(directory, "result.json");
            await File.WriteAllTextAsync(path, content);

            var (exit, stdout, stderr) = await RunAsync(path, "--html", Path.Combine(directory, "r.html"));

            Assert.Equal(2, exit);
            Assert.Equal("", stdout);
            Assert.Equal($"error: {path}: not a Freight bench result ({reason})\n", stderr);
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    [Fact]
    public async Task RunAsync_NotJson_ExitsTwoNamingTheFileAndWritesNothing()
    {
        var directory = TempDirectory();
        try
        {
            var path = Path.Combine(directory, "broken.json");
            await File.WriteAllTextAsync(path, "{ \"tool\": \"freight\", \"results\": [ ");
            var html = Path.Combine(directory, "r.html");

            var (exit, stdout, stderr) = await RunAsync(ReportFixture.ResultPath, path, "--html", html);

            Assert.Equal(2, exit);
            Assert.Equal("", stdout);
            Assert.StartsWith($"error: {path}: not a Freight bench result (not valid JSON at line 1, byte ", stderr, StringComparison.Ordinal);
            Assert.False(File.Exists(html));
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    [Fact]
    public async Task RunAsync_UnwritableOutput_ExitsTwoNamingIt()
    {
        var html = Path.Combine(Path.GetTempPath(), $"freight-missing-dir-{Guid.NewGuid():N}", "r.html");

        var (exit, _, stderr) = await RunAsync(ReportFixture.ResultPath, "--html", html);

        Assert.Equal(2, exit);
        Assert.StartsWith($"error: cannot write {html}: ", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task FreightReport_DirectoryForAResult_ExitsTwoSayingItIsADirectory()
    {
        var directory = TempDirectory();
        try
        {
            var (exit, stdout, stderr) = await FreightCli.RunAsync("report", directory, "--markdown", Path.Combine(directory, "r.md"));

            Assert.Equal(2, exit);
            Assert.Equal("", stdout);
            Assert.Equal($"error: {directory}: is a directory, not a Freight bench result file\n", stderr);
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    [Fact]
    public async Task FreightReport_MissingFile_ExitsTwoWithErrorLine()
    {
        var (exit, stdout, stderr) = await RunFreightAsync("report", "missing.json", "--markdown", Path.Combine(Path.GetTempPath(), "never.md"));

        Assert.Equal(2, exit);
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
