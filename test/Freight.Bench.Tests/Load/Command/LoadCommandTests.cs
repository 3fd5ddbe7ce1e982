using System.Globalization;
using System.Text.Json;
using System.Text.RegularExpressions;
using Freight.Bench.Results;
using Microsoft.AspNetCore.Server.Kestrel.Core;

namespace Freight.Bench.Tests.Load.Command;

/// <summary>
/// <c>freight load</c> end to end, the built CLI against a real Kestrel app in this process: what it verifies,
/// how it counts what goes wrong (by kind, exit 1, never a hang), and its usage errors (exit 2).
/// </summary>
public sealed class LoadCommandTests
{
    [Theory]
    [InlineData("1.1")]
    [InlineData("2")]
    public async Task Get_ExpectedSha256AndReprDigest_VerifiedExit0(string http)
    {
        await using var server = await LoadTargetServer.StartAsync(http == "2" ? HttpProtocols.Http2 : HttpProtocols.Http1);
        const long size = 300_001;

        var run = await LoadCli.RunAsync(server.Url($"/payload/{size}?digest=right").ToString(),
            "-c", "2", "-n", "20", "--http", http, "--expect-status", "200", "--expect-sha256", LoadTargetServer.PayloadSha256(size), "--no-progress");

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        var row = run.Row;
        Assert.Equal("load/get", row.Scenario);
        Assert.True(row.Verified);
        Assert.True(run.Report!.Verified);
        Assert.Equal(20, row.StatusCodes!["200"]);
        Assert.Empty(row.Failures!);
        Assert.Equal(http == "2" ? "h2" : "http/1.1", row.Parameters.Protocol);
        Assert.True(row.BytesPerSecond!.Median > 0);
        Assert.NotNull(row.Client?.CpuSecondsPerResponse);
        Assert.Contains("failures   none", run.Stdout, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Get_WrongReprDigest_DigestFailuresExit1()
    {
        await using var server = await LoadTargetServer.StartAsync();

        var run = await LoadCli.RunAsync(server.Url("/payload/65536?digest=wrong").ToString(), "-c", "2", "-n", "10", "--no-progress");

        Assert.Equal(1, run.Exit);
        Assert.False(run.Row.Verified);
        Assert.Equal(10, run.Row.Failures!["digest"]);
        Assert.Contains("digest 10", run.Stdout, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Get_WrongExpectedSha256_DigestFailuresExit1()
    {
        await using var server = await LoadTargetServer.StartAsync();
        var wrong = LoadTargetServer.PayloadSha256(4097).Replace('a', 'b').Replace('0', '1');

        var run = await LoadCli.RunAsync(server.Url("/payload/4096").ToString(), "-c", "2", "-n", "10", "--expect-sha256", wrong, "--no-progress");

        Assert.Equal(1, run.Exit);
        Assert.Equal(10, run.Row.Failures!["digest"]);
    }

    [Fact]
    public async Task Get_BurstsOf5xx_StatusFailuresCountedExit1()
    {
        await using var server = await LoadTargetServer.StartAsync();

        var run = await LoadCli.RunAsync(server.Url("/burst").ToString(), "-c", "1", "-n", "30", "--expect-status", "200", "--no-progress");

        Assert.Equal(1, run.Exit);
        Assert.Equal(10, run.Row.StatusCodes!["503"]);
        Assert.Equal(20, run.Row.StatusCodes["200"]);
        Assert.Equal(10, run.Row.Failures!["status"]);
        Assert.Contains("status 10", run.Stdout, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Get_UnexpectedStatus_FirstFailureNamesTheStatusAndTheExpectedOne()
    {
        await using var server = await LoadTargetServer.StartAsync();

        var run = await LoadCli.RunAsync(server.Url("/no-such-path").ToString(), "-c", "1", "-n", "3", "--expect-status", "200", "--no-progress");

        Assert.Equal(1, run.Exit);
        Assert.Contains("failures   status 3 — first: status 404, expected 200\n", run.Stdout, StringComparison.Ordinal);
        Assert.Equal(new FailureReason("unexpected_status", "status 404, expected 200"), run.Row.FirstFailure);
    }

    [Fact]
    public async Task Get_WrongExpectedSha256_FirstFailureNamesTheBodysDigestAndTheExpectedOne()
    {
        await using var server = await LoadTargetServer.StartAsync();
        var wrong = new string('0', 64);

        var run = await LoadCli.RunAsync(server.Url("/payload/4096").ToString(), "-c", "1", "-n", "2", "--expect-sha256", wrong, "--no-progress");

        var message = $"body SHA-256 {LoadTargetServer.PayloadSha256(4096)[..12]}…, expected 000000000000…";
        Assert.Equal(1, run.Exit);
        Assert.Contains($"failures   digest 2 — first: {message}\n", run.Stdout, StringComparison.Ordinal);
        Assert.Equal(new FailureReason("digest_mismatch", message), run.Row.FirstFailure);
    }

    [Fact]
    public async Task Get_WrongReprDigest_FirstFailureNamesTheField()
    {
        await using var server = await LoadTargetServer.StartAsync();

        var run = await LoadCli.RunAsync(server.Url("/payload/65536?digest=wrong").ToString(), "-c", "1", "-n", "2", "--no-progress");

        Assert.Equal(1, run.Exit);
        Assert.Equal("digest_mismatch", run.Row.FirstFailure?.Code);
        Assert.StartsWith($"body sha-256 {LoadTargetServer.PayloadSha256(65536)[..12]}…, its Repr-Digest says ", run.Row.FirstFailure!.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Get_NothingListening_NoVerdictAndNoEmptyStatusList()
    {
        var run = await LoadCli.RunAsync(RefusedPort.Url("/nothing").ToString(), "-c", "1", "-d", "1", "--no-progress");

        Assert.Equal(1, run.Exit);
        Assert.Matches(@"(?m)^responses  0$", run.Stdout);
        Assert.Contains("verdict    no verdict: no response measured\n", run.Stdout, StringComparison.Ordinal);
        Assert.Equal("undetermined", run.Row.Blame!.Verdict);
    }

    /// <summary>
    /// A 64 MiB body from a server writing at most 6.4 MiB/s, a 1 s run: no response completes. The summary read
    /// "responses  0  0.0 req/s  0.0 MiB/s" and "CPU – a GiB (nothing moved)" though megabytes had come in: it says that
    /// none completed, what the cut ones received (not as a rate: not verified), and how long a run would need.
    /// Both clients: the raw one (HTTP/1.1) and HttpClient (h2c).
    /// </summary>
    [Theory]
    [InlineData("1.1")]
    [InlineData("2")]
    public async Task Get_LongBodyNoneCompletesWithinTheRun_SaysWhatTheCutOnesReceivedNoRate(string http)
    {
        await using var server = await LoadTargetServer.StartAsync(http == "2" ? HttpProtocols.Http2 : HttpProtocols.Http1);
        const long size = 64L << 20;

        var run = await LoadCli.RunAsync(server.Url($"/payload/{size}?pause=10").ToString(), "-c", "2", "-d", "1", "--http", http, "--no-progress");

        Assert.Equal(1, run.Exit);
        var stdout = run.Stdout.Split('\n');
        Assert.Matches(@"^responses  0 completed within the 1\.[0-9]{2} s run: the 2 responses cut at its end had received [0-9]+\.[0-9] MiB of their bodies \(not verified: no rate is drawn from them\)$",
            Assert.Single(stdout, line => line.StartsWith("responses ", StringComparison.Ordinal)));
        Assert.Matches(@"^advice     a response of 64\.0 MiB takes ~[0-9]+ s at the rate they received: run --duration [0-9]+ or more \(3 a connection\), or -n 2 \(each response read whole, within --timeout 30 s\)",
            Assert.Single(stdout, line => line.StartsWith("advice ", StringComparison.Ordinal)));
        Assert.StartsWith("client     CPU – a GiB (no response completed), ", Assert.Single(stdout, line => line.StartsWith("client ", StringComparison.Ordinal)), StringComparison.Ordinal);
        var row = run.Row;
        Assert.Null(row.BytesPerSecond);
        Assert.Null(row.RequestsPerSecond);
        Assert.Equal(2, row.CutAtEnd!.Requests);
        Assert.InRange(row.CutAtEnd.BodyBytesReceived, 1, (2 * size) - 1);
        Assert.Equal(size, row.CutAtEnd.LongestDeclaredBytes);
        Assert.StartsWith("no response completed (2 cut at the end had received ", row.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Put_OneSmallRequest_NoCpuPerGiBAndNoVerdictSayingWhy()
    {
        await using var server = await LoadTargetServer.StartAsync();

        var run = await LoadCli.RunAsync(server.Url("/sink").ToString(), "-X", "PUT", "--size", "1KiB", "-c", "1", "-n", "1", "--no-progress");

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        Assert.Null(run.Row.Client!.CpuSecondsPerGiB);
        Assert.Matches(@"(?m)^client     CPU – a GiB \(1\.0 KiB moved; it needs 64 MiB\)", run.Stdout);
        Assert.Matches(@"(?m)^verdict    no verdict: the run lasted [0-9.]+ s; a verdict needs 1 s or more$", run.Stdout);
        Assert.Equal("undetermined", run.Row.Blame!.Verdict);
    }

    [Fact]
    public async Task Get_RefusedPort_EachConnectionBacksOffBetweenConnectAttempts()
    {
        // Retried at once, two connections made ~10,000 attempts in a second; backing off from 10 ms up to 0.5 s, ~7 each.
        var run = await LoadCli.RunAsync(RefusedPort.Url("/nothing").ToString(), "-c", "2", "-d", "1", "--no-progress");

        Assert.Equal(1, run.Exit);
        Assert.InRange(run.Row.Failures!["reset"], 2, 2 * 10);
    }

    [Fact]
    public async Task Get_UnknownHost_CountedAsAnErrorNotAReset()
    {
        var run = await LoadCli.RunAsync("http://no-such-host.invalid/x", "-c", "1", "-n", "1", "--no-progress");

        Assert.Equal(1, run.Exit);
        Assert.Equal(new Dictionary<string, long> { ["error"] = 1 }, run.Row.Failures);
        Assert.Equal("host_not_found", run.Row.FirstFailure?.Code);
        Assert.Contains("failures   error 1 — first: host not found\n", run.Stdout, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Get_No2xxWithoutExpectStatus_WarnsAndExits0()
    {
        await using var server = await LoadTargetServer.StartAsync();

        var run = await LoadCli.RunAsync(server.Url("/no-such-path").ToString(), "-c", "1", "-n", "4", "--no-progress");
        var expected = await LoadCli.RunAsync(server.Url("/no-such-path").ToString(), "-c", "1", "-n", "1", "--expect-status", "404", "--no-progress");

        Assert.Equal(0, run.Exit);
        Assert.Contains("failures   none\nwarning    no response was 2xx (404×4): is the URL or token right? --expect-status makes this a failure\n",
            run.Stdout, StringComparison.Ordinal);
        Assert.Equal(0, expected.Exit);
        Assert.DoesNotContain("warning", expected.Stdout, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("1", "1 connection,")]
    [InlineData("2", "2 connections,")]
    public async Task Get_Connections_SummaryCountsThemInGoodEnglish(string connections, string said)
    {
        await using var server = await LoadTargetServer.StartAsync();

        var run = await LoadCli.RunAsync(server.Url("/payload/16").ToString(), "-c", connections, "-n", "2", "--no-progress");

        Assert.Contains($"http/1.1, {said} closed-loop", run.Stdout, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Put_SizeZero_AnEmptyBodyAskedForIsSent()
    {
        await using var server = await LoadTargetServer.StartAsync();

        var run = await LoadCli.RunAsync(server.Url("/sink").ToString(), "-X", "PUT", "--size", "0", "-c", "1", "-n", "2", "--expect-status", "201", "--no-progress");

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        Assert.Equal(2, run.Row.StatusCodes!["201"]);
    }

    [Fact]
    public async Task Put_LiveLine_CountsTheRequestBodiesSent()
    {
        await using var server = await LoadTargetServer.StartAsync();

        // Progress on: redirected, the live line is one line a second on standard error.
        var run = await LoadCli.RunAsync(server.Url("/sink").ToString(), "-X", "PUT", "--size", "1MiB", "-c", "2", "-d", "3", "--expect-status", "201");

        Assert.Equal(0, run.Exit);
        var perSecond = run.Stderr.Split('\n')
            .Select(line => Regex.Match(line, @"req/s\s+([0-9.,]+) MiB/s"))
            .Where(match => match.Success)
            .Select(match => double.Parse(match.Groups[1].Value, NumberStyles.Number, CultureInfo.InvariantCulture))
            .ToList();
        Assert.NotEmpty(perSecond);

        // The responses carry no body: what moved is the uploads, 1 MiB for each request answered.
        Assert.Contains(perSecond, mibPerSecond => mibPerSecond > 0);
        Assert.True(run.Row.BytesPerSecond!.Median > 0);
    }

    [Fact]
    public async Task Get_UnreachableUrl_ResetsCountedConnectionRefusedInWordsExit1()
    {
        var run = await LoadCli.RunAsync(RefusedPort.Url("/nothing").ToString(), "-c", "2", "-d", "1", "--no-progress");

        Assert.Equal(1, run.Exit);
        Assert.Equal(0, run.Row.Transfers);
        Assert.True(run.Row.Failures!["reset"] > 0);
        Assert.Matches(@"(?m)^failures   reset [\d,]+ — first: connection refused$", run.Stdout);
        Assert.DoesNotContain("Exception", run.Stdout, StringComparison.Ordinal);
        Assert.Equal(new FailureReason("connection_refused", "connection refused"), run.Row.FirstFailure);
    }

    [Fact]
    public async Task Get_ServerStoppedMidRun_ResetsCountedRunEndsExit1()
    {
        var server = await LoadTargetServer.StartAsync();
        var url = server.Url("/payload/4096").ToString();

        var running = LoadCli.RunAsync(url, "-c", "4", "-d", "4", "--no-progress");

        // Stopped once the run is under way (the CLI's start-up on a loaded machine can take seconds).
        await LoadTargetServer.WaitForPayloadsAsync(20);
        await server.DisposeAsync();
        var run = await running;

        Assert.Equal(1, run.Exit);
        Assert.True(run.Row.StatusCodes!["200"] > 0);
        Assert.True(run.Row.Failures!.GetValueOrDefault("reset") + run.Row.Failures!.GetValueOrDefault("length") > 0);
        Assert.False(run.Row.Verified);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Get_ServerClosesMidBody_LengthFailuresExit1(bool hashed)
    {
        // Content-Length promises 100,000 bytes; 1,000 come, then the server closes.
        await using var server = RawResponseServer.Start("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + new string('x', 1000), closeAfterResponse: true);
        string[] hash = hashed ? ["--expect-sha256", new string('0', 64)] : [];

        var run = await LoadCli.RunAsync([server.Url.ToString(), "-c", "1", "-n", "5", "--timeout", "5", "--no-progress", .. hash]);

        Assert.Equal(1, run.Exit);
        Assert.Equal(5, run.Row.Failures!["length"]);
        Assert.Equal(0, run.Row.Transfers);
    }

    [Theory]
    [InlineData("GET")]
    [InlineData("HEAD")]
    public async Task AnyMethod_ServerClosesBeforeAnswering_ResetsSaidConnectionClosed(string method)
    {
        // GET goes through the raw HTTP/1.1 client, HEAD through HttpClient: the same event is one kind and one code.
        await using var server = RawResponseServer.Start("", closeAfterResponse: true);

        var run = await LoadCli.RunAsync(server.Url.ToString(), "-X", method, "-c", "1", "-n", "3", "--timeout", "5", "--no-progress");

        Assert.Equal(1, run.Exit);
        Assert.Equal(new Dictionary<string, long> { ["reset"] = 3 }, run.Row.Failures);
        Assert.Equal(new FailureReason("connection_closed", "the server closed the connection before answering"), run.Row.FirstFailure);
        Assert.Contains("failures   reset 3 — first: the server closed the connection before answering\n", run.Stdout, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("GET", false)]
    [InlineData("HEAD", false)]
    [InlineData("GET", true)]
    [InlineData("HEAD", true)]
    public async Task AnyMethod_ServerClosesPartWayThroughTheHead_ResetsSaidClosedOrReset(string method, bool reset)
    {
        // GET goes through the raw HTTP/1.1 client, HEAD through HttpClient. Half a head is no response: a close then
        // is the close before answering (the raw client had counted it as an error), a reset the reset.
        const string halfHead = "HTTP/1.1 200 OK\r\nContent-Le";
        await using var server = reset ? RawResponseServer.StartResetting(halfHead) : RawResponseServer.Start(halfHead, closeAfterResponse: true);

        var run = await LoadCli.RunAsync(server.Url.ToString(), "-X", method, "-c", "1", "-n", "3", "--timeout", "5", "--no-progress");

        Assert.Equal(1, run.Exit);
        Assert.Equal(new Dictionary<string, long> { ["reset"] = 3 }, run.Row.Failures);
        Assert.Equal(
            reset ? new FailureReason("connection_reset", "connection reset by the server") : new FailureReason("connection_closed", "the server closed the connection before answering"),
            run.Row.FirstFailure);
    }

    [Fact]
    public async Task Post_MultipartPayload_ServerFindsTheFilePartExit0()
    {
        await using var server = await LoadTargetServer.StartAsync();
        const long size = 200_000;

        var run = await LoadCli.RunAsync(server.Url($"/form?size={size}").ToString(), "-X", "POST", "--size", size.ToString(CultureInfo.InvariantCulture),
            "--multipart", "--field", "upload", "--filename", "data.bin", "-c", "2", "-n", "6", "--expect-status", "200", "--no-progress");

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        Assert.Equal("load/post", run.Row.Scenario);
        Assert.Equal(6, run.Row.StatusCodes!["200"]);
    }

    [Fact]
    public async Task Get_LongDownloadsAtEightConnections_ClientRssGrowsFarLessThanBytesMoved()
    {
        await using var server = await LoadTargetServer.StartAsync();

        // 8 MiB a response, back to back on 8 connections: a client that kept bodies would grow by gigabytes.
        var run = await LoadCli.RunAsync(server.Url("/memory").ToString(), "-c", "8", "-d", "4", "--no-progress");

        var row = run.Row;
        var moved = row.BytesPerSecond!.Median * run.Report!.Settings.RunSeconds;
        var growth = row.Client!.WorkingSetBytesMax!.Value - row.Blame!.ClientWorkingSetBytesFirst!.Value;
        Assert.True(moved > 512L << 20, $"moved only {moved / (1 << 20):N0} MiB");
        Assert.True(growth < 64L << 20, $"client RSS grew by {growth / (1 << 20):N0} MiB while {moved / (1 << 20):N0} MiB moved");
    }

    [Fact]
    public async Task Head_Payload_StatusOnlyNoBodyBytesExit0()
    {
        await using var server = await LoadTargetServer.StartAsync();

        var run = await LoadCli.RunAsync(server.Url("/payload/65536").ToString(), "-X", "HEAD", "-n", "10", "-c", "2", "--expect-status", "200", "--no-progress");

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        Assert.Equal("load/head", run.Row.Scenario);
        Assert.Equal(10, run.Row.StatusCodes!["200"]);
        Assert.Equal(0, run.Row.BytesPerSecond!.Median);
    }

    [Fact]
    public async Task Get_Rate_OpenLoopSendsEveryScheduledRequest()
    {
        await using var server = await LoadTargetServer.StartAsync();

        var run = await LoadCli.RunAsync(server.Url("/payload/4096").ToString(), "-R", "50", "-n", "40", "-c", "4", "--expect-status", "200", "--no-progress");

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        Assert.Equal("open-loop", run.Row.Parameters.Mode);
        Assert.Equal(40, run.Row.StatusCodes!["200"]);
        Assert.Contains("from each request's due time", run.Stdout, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TwoLoadResults_CompareAndReport_ReadThemAsBenchResults()
    {
        await using var server = await LoadTargetServer.StartAsync();
        var directory = Directory.CreateTempSubdirectory("freight-load-compare-").FullName;
        try
        {
            var before = Path.Combine(directory, "before.json");
            var after = Path.Combine(directory, "after.json");
            var markdown = Path.Combine(directory, "load.md");
            var csv = Path.Combine(directory, "csv");
            var first = await LoadCli.RunAsync(server.Url("/payload/65536").ToString(), "-n", "20", "-c", "2", "--no-progress", "--markdown", markdown, "--csv", csv);
            var second = await LoadCli.RunAsync(server.Url("/payload/65536").ToString(), "-n", "20", "-c", "2", "--no-progress");
            await File.WriteAllTextAsync(before, JsonSerializer.Serialize(first.Report, Freight.Bench.Results.BenchReport.JsonOptions));
            await File.WriteAllTextAsync(after, JsonSerializer.Serialize(second.Report, Freight.Bench.Results.BenchReport.JsonOptions));
            using var compared = new StringWriter();
            using var errors = new StringWriter();

            var exit = await Freight.Bench.Reports.CompareCommand.RunAsync([before, after], compared, errors);

            Assert.True(exit == 0, errors.ToString());
            Assert.Contains("load/get", compared.ToString(), StringComparison.Ordinal);
            Assert.Contains("load/get", await File.ReadAllTextAsync(markdown), StringComparison.Ordinal);
            Assert.NotEmpty(Directory.GetFiles(csv, "*.csv"));
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    [Theory]
    [InlineData("-X", "GET", "--size", "10")]
    [InlineData("--size", "10", "--file", "x", "-X", "PUT")]
    [InlineData("--expect-sha256", "abc")]
    [InlineData("--http", "3")]
    [InlineData("--connections", "0")]
    [InlineData("-X", "DELETE")]
    [InlineData("-H", "no colon")]
    [InlineData("--insecure")]
    [InlineData("--no-such-option")]
    public async Task Load_UsageError_Exit2WithMessage(params string[] args)
    {
        var run = await LoadCli.RunAsync(["http://127.0.0.1:1/", "-n", "1", .. args]);

        Assert.Equal(2, run.Exit);
        Assert.Contains("error:", run.Stderr, StringComparison.Ordinal);
        Assert.Null(run.Report);
    }
}
