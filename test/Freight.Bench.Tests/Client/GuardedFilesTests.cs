namespace Freight.Bench.Tests.Client;

/// <summary>put and get against a files API with bearer tokens and a file size limit.</summary>
public sealed class GuardedFilesTests(GuardedFilesServer server) : IClassFixture<GuardedFilesServer>
{
    [Fact]
    public async Task Put_WithoutToken_Exits1With401AndAsksForOne()
    {
        var source = await WriteAsync("anonymous.bin", 1000);

        var put = await ClientRun.PutAsync(source, server.Url("anonymous.bin"));

        put.AssertExit(1);
        Assert.StartsWith($"error: {server.Url("anonymous.bin")}: HTTP 401 Unauthorized: ", put.Error, StringComparison.Ordinal);
        Assert.Contains("(the server asks for Bearer", put.Error, StringComparison.Ordinal);
        Assert.Contains("pass --token T)", put.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task PutWithWriteTokenThenGetWithReadToken_RoundTrip()
    {
        var source = await WriteAsync("granted.bin", 50_000);
        var target = server.Local("granted.copy");

        var put = await ClientRun.PutAsync(source, server.Url("granted.bin"), "--token", GuardedFilesServer.WriteToken);
        var get = await ClientRun.GetAsync(server.Url("granted.bin"), target, "--token", GuardedFilesServer.ReadToken);

        put.AssertExit(0);
        get.AssertExit(0);
        Assert.Equal(await File.ReadAllBytesAsync(source), await File.ReadAllBytesAsync(target));
    }

    [Fact]
    public async Task Put_WithReadToken_Exits1With403SayingItMayNotWrite()
    {
        var source = await WriteAsync("reader.bin", 1000);

        var put = await ClientRun.PutAsync(source, server.Url("reader.bin"), "--token", GuardedFilesServer.ReadToken);

        put.AssertExit(1);
        Assert.StartsWith($"error: {server.Url("reader.bin")}: HTTP 403 Forbidden: Forbidden: The token may read, not write", put.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Get_WrongToken_Exits1With401AndLeavesNoFile()
    {
        var target = server.Local("wrong-token.copy");

        var get = await ClientRun.GetAsync(server.Url("anything.bin"), target, "--token", "not-a-token");

        get.AssertExit(1);
        Assert.StartsWith($"error: {server.Url("anything.bin")}: HTTP 401", get.Error, StringComparison.Ordinal);
        // A token was given: asking for one would send the user looking for the wrong mistake.
        Assert.Contains("(the server refused the token given: check --token)", get.Error, StringComparison.Ordinal);
        Assert.DoesNotContain("pass --token T", get.Error, StringComparison.Ordinal);
        Assert.False(File.Exists(target));
        Assert.False(File.Exists(target + ".partial"));
    }

    [Fact]
    public async Task Put_LargerThanTheServerStores_Exits1With413()
    {
        var source = await WriteAsync("large.bin", GuardedFilesServer.MaxFileBytes + 1);

        var put = await ClientRun.PutAsync(source, server.Url("large.bin"), "--token", GuardedFilesServer.WriteToken);

        put.AssertExit(1);
        Assert.StartsWith($"error: {server.Url("large.bin")}: HTTP 413", put.Error, StringComparison.Ordinal);
        var get = await ClientRun.GetAsync(server.Url("large.bin"), server.Local("large.copy"), "--token", GuardedFilesServer.ReadToken);
        Assert.StartsWith($"error: {server.Url("large.bin")}: HTTP 404", get.Error, StringComparison.Ordinal);
    }

    private async Task<string> WriteAsync(string name, int length)
    {
        var path = server.Local(name);
        await File.WriteAllBytesAsync(path, TestFiles.Bytes(length, seed: length));
        return path;
    }
}
