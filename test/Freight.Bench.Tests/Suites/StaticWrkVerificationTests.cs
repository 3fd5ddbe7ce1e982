using Freight.Bench.Load;
using Freight.Bench.Peers;
using Freight.Bench.Suites.Static;
using Freight.Bench.Tests.Load;
using Freight.Bench.Tests.Peers;

namespace Freight.Bench.Tests.Suites;

/// <summary>
/// The static suite's wrk rows decide issue 20's goals against nginx, and wrk checks no body: each round is held to
/// its statuses, the bytes it read, and one byte-compared GET right after it. Real wrk against a real Kestrel.
/// </summary>
public sealed class StaticWrkVerificationTests
{
    private const string Missing = WrkTests.Missing;

    private static readonly HttpClient Client = new();

    [Fact]
    public async Task VerifyWrkRound_RightBytesThenTheFile_Passes()
    {
        Assert.True(Wrk.IsInstalled, Missing);
        await using var server = await LoadTestServer.StartAsync();
        var wrk = await RunWrkAsync(server, "/pattern");

        await StaticSuiteRunner.VerifyWrkRoundAsync(Client, wrk, server.Url("/pattern"), LoadTestServer.PatternBody, CancellationToken.None);
    }

    [Fact]
    public async Task VerifyWrkRound_TooFewBytesForTheFile_Fails()
    {
        Assert.True(Wrk.IsInstalled, Missing);
        await using var server = await LoadTestServer.StartAsync();
        var wrk = await RunWrkAsync(server, "/pattern");
        var twiceTheFile = new byte[LoadTestServer.PatternBytes * 2];

        var error = await Assert.ThrowsAsync<VerificationException>(() =>
            StaticSuiteRunner.VerifyWrkRoundAsync(Client, wrk, server.Url("/pattern"), twiceTheFile, CancellationToken.None));

        Assert.Contains($"bytes for {wrk.Requests} responses of a {twiceTheFile.Length}-byte file", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task VerifyWrkRound_GetAfterTheRoundAnswersOtherBytes_Fails()
    {
        Assert.True(Wrk.IsInstalled, Missing);
        await using var server = await LoadTestServer.StartAsync();
        var wrk = await RunWrkAsync(server, "/pattern");

        // The counts hold; the server's next answer is the pattern with its first byte flipped.
        var error = await Assert.ThrowsAsync<VerificationException>(() =>
            StaticSuiteRunner.VerifyWrkRoundAsync(Client, wrk, server.Url("/pattern?wrongEvery=1"), LoadTestServer.PatternBody, CancellationToken.None));

        Assert.Contains("that are not the file's", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task VerifyWrkRound_NotFoundAnswers_Fails()
    {
        Assert.True(Wrk.IsInstalled, Missing);
        await using var server = await LoadTestServer.StartAsync();
        var wrk = await RunWrkAsync(server, "/status/404");

        var error = await Assert.ThrowsAsync<VerificationException>(() =>
            StaticSuiteRunner.VerifyWrkRoundAsync(Client, wrk, server.Url("/status/404"), LoadTestServer.PatternBody, CancellationToken.None));

        Assert.Contains($"{wrk.Requests} non-2xx answers", error.Message, StringComparison.Ordinal);
    }

    private static async Task<WrkResult> RunWrkAsync(LoadTestServer server, string path) =>
        await Wrk.RunAsync(server.Url(path), 4, TimeSpan.FromSeconds(1), CancellationToken.None)
        ?? throw new InvalidOperationException("wrk is not installed");
}
