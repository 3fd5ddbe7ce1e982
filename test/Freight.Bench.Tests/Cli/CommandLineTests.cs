using Freight.Bench.Reports;
using Freight.Server.Hosting;

namespace Freight.Bench.Tests.Cli;

/// <summary>
/// The <c>freight</c> command line (System.CommandLine): generated help for the root and every command, usage errors
/// (unknown option, missing or invalid value) on stderr naming the option with exit code 2, serve's pass-through.
/// </summary>
public sealed class CommandLineTests
{
    [Theory]
    [InlineData("serve", "--urls", "--data-dir", "--max-body-bytes", "--fsync", "--store", "--s3-endpoint", "--s3-bucket", "--Freight:KEY")]
    [InlineData("bench", "--suite", "--full", "--quick", "--runs", "--run-seconds", "--warmup-seconds", "--max-seconds", "--size", "--records", "--temp-dir", "--ramp-to", "--ramp-seconds", "--tus-node-dir", "--store", "--micro-job", "--target", "--certificate-sha256", "--json", "--filter", "--cpu-affinity", "--no-progress", "--no-report")]
    [InlineData("load", "<URL>", "--method", "--size", "--file", "--connections", "--duration", "--requests", "--rate", "--http", "--expect-status", "--json", "--no-progress")]
    [InlineData("compare", "<FILES>", "--markdown", "--scenarios", "--noise", "--output")]
    [InlineData("report", "<FILES>", "--html", "--markdown", "--csv", "--svg", "--verdicts", "--noise")]
    [InlineData("put", "<FILE> <URL>", "--if-none-match", "--token", "--no-progress", "--certificate-sha256")]
    [InlineData("get", "<URL> <FILE>", "--token", "--no-progress", "--certificate-sha256")]
    public async Task Help_EachCommand_Exits0AndListsItsOptions(string command, params string[] listed)
    {
        foreach (var help in new[] { "--help", "-h" })
        {
            var (exit, stdout, stderr) = await FreightCli.RunAsync(command, help);

            Assert.True(exit == 0, stderr);
            Assert.Equal("", stderr);
            Assert.Contains($"freight {command}", stdout, StringComparison.Ordinal);
            Assert.All(listed, option => Assert.Contains(option, stdout, StringComparison.Ordinal));
            Assert.DoesNotContain(stdout.Split('\n'), line => line.StartsWith("listening:", StringComparison.Ordinal));
        }
    }

    [Fact]
    public async Task Help_Root_ListsEveryCommandButTheInternalOne()
    {
        var (exit, stdout, _) = await FreightCli.RunAsync("--help");

        Assert.Equal(0, exit);
        Assert.All(["serve", "bench", "load", "compare", "report", "put", "get"], command => Assert.Contains($"\n  {command} ", stdout, StringComparison.Ordinal));
        Assert.DoesNotContain("tcp-sink", stdout, StringComparison.Ordinal);
    }

    [Fact]
    public void Help_Serve_ListsEveryShortSwitchTheHostMapsAndSaysTheRestAreSettings()
    {
        var help = FreightCli.Help("serve");

        Assert.All(ServeCommand.SwitchNames, name => Assert.Contains($"\n  {name} <", help, StringComparison.Ordinal));
        // What no switch names is a configuration setting: the usage and an Arguments section say so, in place of
        // System.CommandLine's pass-through wording ("[[--] <additional arguments>...]]", "the application that is being run").
        Assert.Contains("\nUsage:\n  freight serve [<settings>...] [options]\n", help, StringComparison.Ordinal);
        Assert.Contains("\nArguments:\n  <settings>  Configuration settings, each --Section:Key value, of the sections Freight, Kestrel and Logging: --Freight:DataDirectory DIR,", help, StringComparison.Ordinal);
        Assert.Contains("docs/server.md lists the keys", help.ReplaceLineEndings(" "), StringComparison.Ordinal);
        Assert.DoesNotContain("additional arguments", help, StringComparison.OrdinalIgnoreCase);
    }

    [Theory]
    [InlineData("bench", "--bogus")]
    [InlineData("compare", "a.json", "b.json", "--bogus")]
    [InlineData("report", "a.json", "--html", "a.html", "--bogus")]
    [InlineData("put", "a.bin", "http://127.0.0.1:1/files/a", "--bogus")]
    [InlineData("get", "http://127.0.0.1:1/files/a", "a.bin", "--bogus")]
    [InlineData("load", "http://127.0.0.1:1/", "--bogus")]
    public async Task UnknownOption_Exit2NamingIt(params string[] args)
    {
        var (exit, stdout, stderr) = await FreightCli.RunAsync(args);

        Assert.Equal(2, exit);
        Assert.Equal("", stdout);
        Assert.StartsWith("error: Unrecognized command or argument '--bogus'.", stderr, StringComparison.Ordinal);
        Assert.Contains($"usage: freight {args[0]} --help", stderr, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("report", "a.json", "--bogus")]
    [InlineData("compare", "--bogus")]
    [InlineData("load", "--bogus")]
    [InlineData("load", "--bogus", "http://127.0.0.1:1/")]
    [InlineData("put", "--bogus", "a.bin", "http://127.0.0.1:1/files/a.bin")]
    [InlineData("get", "--bogus", "http://127.0.0.1:1/files/a.bin", "a.bin")]
    public async Task UnknownOption_WhereAnOutputOrAValueWasExpected_Exit2NamingItAlone(params string[] args)
    {
        // Without it report said it needed an output, load that '--bogus' was not a URL, and, with the URL after
        // it, that the URL was unrecognized; put that its URL 'a.bin' was not one, get that '--bogus' was not one.
        var (exit, stdout, stderr) = await FreightCli.RunAsync(args);

        Assert.Equal(2, exit);
        Assert.Equal("", stdout);
        Assert.Equal($"error: Unrecognized command or argument '--bogus'.\nusage: freight {args[0]} --help\n", stderr);
    }

    [Theory]
    [InlineData("load", "--duration", "3s", "a positive number of seconds (e.g. 3 or 0.5)")]
    [InlineData("load", "-d", "soon", "a positive number of seconds (e.g. 3 or 0.5)")]
    [InlineData("load", "--requests", "ten", "a positive whole number")]
    [InlineData("load", "--connections", "many", "a positive whole number")]
    [InlineData("load", "--rate", "fast", "a positive number of requests a second")]
    [InlineData("load", "--timeout", "5s", "a positive number of seconds (e.g. 3 or 0.5)")]
    [InlineData("load", "--expect-status", "ok", "a final status code (200–999)")]
    [InlineData("load", "--expect-status", "99", "a final status code (200–999)")]
    [InlineData("load", "--server-pid", "nginx", "a process id")]
    [InlineData("bench", "--run-seconds", "1s", "a positive number of seconds (e.g. 3 or 0.5)")]
    public async Task NumericOption_NotANumber_Exit2SayingWhatItNeedsWithoutATypeName(string command, string option, string value, string needs)
    {
        string[] args = command == "load" ? ["load", "http://127.0.0.1:1/", option, value] : [command, option, value];

        var (exit, stdout, stderr) = await FreightCli.RunAsync(args);

        Assert.Equal(2, exit);
        Assert.Equal("", stdout);
        Assert.Equal($"error: {option} needs {needs}, not '{value}'.\nusage: freight {command} --help\n", stderr);
    }

    [Theory]
    [InlineData(" (did you mean --duration?)", "load", "http://127.0.0.1:1/", "--durration", "3")]
    [InlineData(" (did you mean --duration?)", "load", "http://127.0.0.1:1/", "-n", "1", "--durration", "3", "-c", "2")]
    [InlineData(".", "bench", "--durration", "3")]
    public async Task UnknownOption_WithAValue_Exit2NamingTheOptionAlone(string suggestion, params string[] args)
    {
        var (exit, stdout, stderr) = await FreightCli.RunAsync(args);

        Assert.Equal(2, exit);
        Assert.Equal("", stdout);
        Assert.Equal($"error: Unrecognized command or argument '--durration'{suggestion}\nusage: freight {args[0]} --help\n", stderr);
    }

    [Theory]
    [InlineData("PUT")]
    [InlineData("POST")]
    [InlineData("patch")]
    public async Task Load_UploadMethodWithoutABody_Exit2SayingWhichOptionGivesOne(string method)
    {
        var (exit, stdout, stderr) = await FreightCli.RunAsync("load", "http://127.0.0.1:1/", "-X", method, "-n", "1");

        Assert.Equal(2, exit);
        Assert.Equal("", stdout);
        Assert.Equal($"error: -X {method.ToUpperInvariant()} needs a body: --size N (the payload; --size 0 for an empty body) or --file PATH.\nusage: freight load --help\n", stderr);
    }

    [Theory]
    [InlineData("--expect-staus", "--expect-status", "load", "http://127.0.0.1:1/", "--expect-staus", "200")]
    [InlineData("--expect-staus", "--expect-status", "load", "--expect-staus", "200", "http://127.0.0.1:1/")]
    [InlineData("--conections", "--connections", "load", "http://127.0.0.1:1/", "--conections", "2")]
    [InlineData("--quik", "--quick", "bench", "--quik")]
    [InlineData("--htm", "--html", "report", "a.json", "--htm", "a.html")]
    [InlineData("--tokn", "--token", "get", "http://127.0.0.1:1/files/a", "a.bin", "--tokn", "T")]
    public async Task UnknownOption_ATypoOfOne_Exit2SuggestingIt(string typed, string meant, params string[] args)
    {
        var (exit, stdout, stderr) = await FreightCli.RunAsync(args);

        Assert.Equal(2, exit);
        Assert.Equal("", stdout);
        Assert.Equal($"error: Unrecognized command or argument '{typed}' (did you mean {meant}?)\nusage: freight {args[0]} --help\n", stderr);
    }

    [Theory]
    [InlineData("--runs", "bench", "--runs", "0")]
    [InlineData("--runs", "bench", "--runs", "many")]
    [InlineData("--run-seconds", "bench", "--run-seconds", "-1")]
    [InlineData("--max-seconds", "bench", "--max-seconds", "soon")]
    [InlineData("--ramp-to", "bench", "--ramp-to", "0")]
    [InlineData("--suite", "bench", "--suite", "nope")]
    [InlineData("--target", "bench", "--target", "ftp://example")]
    [InlineData("store", "bench", "--suite", "files", "--store", "minio")]
    [InlineData("--json", "bench", "--json")]
    [InlineData("--json", "bench", "--suite", "json", "--json", "/proc/freight-cannot-write-here.json")]
    [InlineData("--filter", "bench", "--suite", "transfer", "--filter", "DOWNLOAD/FREIGHT")]
    [InlineData("--filter", "bench", "--suite", "json", "--suite", "static", "--filter", "no-such-scenario")]
    [InlineData("--micro-job", "bench", "--micro-job", "long")]
    [InlineData("--certificate-sha256", "bench", "--target", "https://127.0.0.1:1", "--certificate-sha256", "abcd")]
    [InlineData("--certificate-sha256", "bench", "--certificate-sha256", "AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89")]
    [InlineData("--quick and --full", "bench", "--quick", "--full")]
    [InlineData("--noise", "compare", "a.json", "b.json", "--noise", "-1")]
    [InlineData("--scenarios", "compare", "a.json", "--scenarios", "one")]
    [InlineData("two result files", "compare", "a.json")]
    [InlineData("--noise", "report", "a.json", "--html", "a.html", "--noise", "x")]
    [InlineData("--certificate-sha256", "get", "https://127.0.0.1:1/files/a", "a.bin", "--certificate-sha256", "abcd")]
    [InlineData("--token", "put", "a.bin", "http://127.0.0.1:1/files/a", "--token", "two words")]
    [InlineData("--json", "load", "http://127.0.0.1:1/", "-n", "1", "--json", "/proc/freight-cannot-write-here.json")]
    [InlineData("--markdown", "load", "http://127.0.0.1:1/", "-n", "1", "--markdown", "/proc/freight-cannot-write-here.md")]
    [InlineData("--html", "load", "http://127.0.0.1:1/", "-n", "1", "--html", "/proc/freight-cannot-write-here.html")]
    [InlineData("--csv", "load", "http://127.0.0.1:1/", "-n", "1", "--csv", "/proc/freight-cannot-write-here")]
    [InlineData("--json", "load", "http://127.0.0.1:1/", "-n", "1", "--json", "/tmp")]
    [InlineData("--connections", "load", "http://127.0.0.1:1/", "--connections", "0")]
    public async Task InvalidValue_Exit2NamingTheOption(string named, params string[] args)
    {
        var (exit, stdout, stderr) = await FreightCli.RunAsync(args);

        Assert.Equal(2, exit);
        Assert.Equal("", stdout);
        Assert.StartsWith("error: ", stderr, StringComparison.Ordinal);
        Assert.Contains(named, stderr.Split('\n')[0], StringComparison.Ordinal);
    }

    [Theory]
    [InlineData]
    [InlineData("fly")]
    public async Task NoOrUnknownCommand_Exit2WithWhereTheHelpIs(params string[] args)
    {
        var (exit, _, stderr) = await FreightCli.RunAsync(args);

        Assert.Equal(2, exit);
        Assert.StartsWith("error: ", stderr, StringComparison.Ordinal);
        Assert.Contains("usage: freight --help", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Serve_ConfigurationKeys_ReachTheHostUnchanged()
    {
        // Neither key is an option of the command, and --urls is given twice as the host allows: all of it goes to the
        // host, which validates it (the last Urls wins there) and serves nothing.
        var data = Path.Combine(Path.GetTempPath(), $"freight-cli-serve-{Guid.NewGuid():N}");
        var (exit, stdout, stderr) = await FreightCli.RunAsync(
            "serve", "--data-dir", data, "--urls", "http://127.0.0.1:0", "--urls", "h2c://127.0.0.1:0", "--Freight:Urls", "gopher://y", "--Freight:MaxRequestBodyBytes", "0");

        Assert.Equal(2, exit);
        Assert.Equal("", stdout);
        Assert.Contains("error: Freight:Urls has 'gopher://y'", stderr, StringComparison.Ordinal);
        Assert.Contains("error: Freight:MaxRequestBodyBytes", stderr, StringComparison.Ordinal);
        Assert.DoesNotContain("Unrecognized", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public void CompareParse_EachOption_IsKept()
    {
        var files = CompareCommand.Parse(["a.json", "b.json", "c.json", "--markdown", "--noise", "2.5", "--output", "o.md"], out var error);
        var scenarios = CompareCommand.Parse(["run.json", "--scenarios", "static/staticfiles, static/freight,static/freight"], out var scenarioError);
        var defaults = CompareCommand.Parse(["a.json", "b.json"], out _);

        Assert.Null(error);
        Assert.Equal(["a.json", "b.json", "c.json"], files!.Files);
        Assert.Equal((true, 2.5, "o.md"), (files.Markdown, files.NoisePercent, files.Output));
        Assert.Null(files.Scenarios);
        Assert.Null(scenarioError);
        Assert.Equal(["static/staticfiles", "static/freight"], scenarios!.Scenarios);
        Assert.Equal((false, CompareReport.DefaultNoisePercent, (string?)null), (defaults!.Markdown, defaults.NoisePercent, defaults.Output));
    }

    [Fact]
    public void ReportParse_EachOption_IsKept()
    {
        var options = ReportCommand.Parse(["a.json", "b.json", "--html", "r.html", "--markdown", "r.md", "--csv", "csv", "--svg", "svg", "--verdicts", "v.md", "--noise", "0"], out var error);

        Assert.Null(error);
        Assert.Equal(["a.json", "b.json"], options!.Files);
        Assert.Equal(("r.html", "r.md", "csv", "svg", "v.md", 0.0), (options.Html, options.Markdown, options.CsvDirectory, options.SvgDirectory, options.Verdicts, options.NoisePercent));
    }

    [Fact]
    public void Help_BenchRuns_SaysHowManyRunsAnIntervalNeeds()
    {
        var help = string.Join(' ', FreightCli.Help("bench").Split((char[])[' ', '\n'], StringSplitOptions.RemoveEmptyEntries));

        Assert.Contains("A goal's interval needs 2 runs and is wide below 5; with 1 a goal is read off one figure (\"no interval\")", help, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Process_UsageErrorAndHelp_ExitCodesAsUsersSeeThem()
    {
        var invalid = await FreightCli.RunProcessAsync("bench", "--runs", "0");
        var help = await FreightCli.RunProcessAsync("bench", "--help");
        var none = await FreightCli.RunProcessAsync();

        Assert.Equal(2, invalid.Exit);
        Assert.Equal("error: --runs needs a positive whole number, not '0'.\nusage: freight bench --help\n", invalid.Stderr);
        Assert.Equal(0, help.Exit);
        Assert.Contains("--runs <N>", help.Stdout, StringComparison.Ordinal);
        Assert.Equal(2, none.Exit);
    }
}
