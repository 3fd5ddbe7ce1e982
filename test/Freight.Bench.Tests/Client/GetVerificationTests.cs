using Freight.Bench.Client;

namespace Freight.Bench.Tests.Client;

/// <summary>What get does with answers freight serve never gives: wrong, missing or unreadable digests, a stalled body.</summary>
public sealed class GetVerificationTests(DigestTestServer server) : IClassFixture<DigestTestServer>
{
    [Fact]
    public async Task Get_ReprDigestOfOtherBytes_Exits1AndKeepsNothing()
    {
        var target = server.Local("wrong.bin");

        var get = await ClientRun.GetAsync(server.Url("/wrong"), target);

        get.AssertExit(1);
        Assert.StartsWith($"error: {server.Url("/wrong")}: sha-256 of the bytes is ", get.Error, StringComparison.Ordinal);
        Assert.Contains($"{target}.partial deleted.", get.Error, StringComparison.Ordinal);
        Assert.Equal("", get.Output);
        Assert.False(File.Exists(target));
        Assert.False(File.Exists(target + ".partial"));
        Assert.False(File.Exists(target + ".partial.etag"));
    }

    [Fact]
    public async Task Get_MalformedReprDigest_Exits1AndKeepsNothing()
    {
        var target = server.Local("malformed.bin");

        var get = await ClientRun.GetAsync(server.Url("/malformed"), target);

        get.AssertExit(1);
        Assert.Contains("unreadable Repr-Digest: sha-256=not-a-byte-sequence", get.Error, StringComparison.Ordinal);
        Assert.False(File.Exists(target));
        Assert.False(File.Exists(target + ".partial"));
    }

    [Fact]
    public async Task Get_NoReprDigest_SavesAndSaysItIsUnverified()
    {
        var target = server.Local("none.bin");

        var get = await ClientRun.GetAsync(server.Url("/none"), target);

        get.AssertExit(0);
        Assert.Contains("sent no sha-256 Repr-Digest", get.Error, StringComparison.Ordinal);
        Assert.StartsWith($"saved: {target} etag={DigestTestServer.ETag} sha-256 not verified, {DigestTestServer.BodyBytes} bytes in ", get.Output, StringComparison.Ordinal);
        Assert.Equal(DigestTestServer.Body, await File.ReadAllBytesAsync(target));
    }

    [Fact]
    public async Task Get_CancelledMidway_KeepsThePartialAndTheNextGetResumes()
    {
        var target = server.Local("stall.bin");
        var partial = target + ".partial";
        using var cancel = new CancellationTokenSource();
        var first = ClientRun.RunAsync(GetCommand.RunAsync, [server.Url("/stall"), target], cancel.Token);
        // The server sends StallAfter bytes and waits: cancel (Ctrl+C) once they are all on disk.
        using (var patience = new CancellationTokenSource(TimeSpan.FromSeconds(60)))
        {
            while (!File.Exists(partial) || new FileInfo(partial).Length < DigestTestServer.StallAfter)
            {
                if (first.IsCompleted)
                {
                    Assert.Fail($"get ended before the stall: {(await first).Error}");
                }

                await Task.Delay(20, patience.Token);
            }
        }

        await cancel.CancelAsync();
        var interrupted = await first;
        var resumed = await ClientRun.GetAsync(server.Url("/stall"), target);

        interrupted.AssertExit(1);
        Assert.Equal("interrupted.\nkept: " + partial + $" ({DigestTestServer.StallAfter} bytes); run the same get to resume.\n", interrupted.Error.ReplaceLineEndings("\n"));
        resumed.AssertExit(0);
        Assert.Contains($" sha-256 verified, {DigestTestServer.BodyBytes - DigestTestServer.StallAfter} bytes in ", resumed.Output, StringComparison.Ordinal);
        Assert.Contains($"resumed at byte {DigestTestServer.StallAfter}", resumed.Output, StringComparison.Ordinal);
        Assert.Equal(DigestTestServer.Body, await File.ReadAllBytesAsync(target));
        Assert.False(File.Exists(partial));
        Assert.False(File.Exists(partial + ".etag"));
    }
}
