using Freight.Bench.Client;

namespace Freight.Bench.Tests.Client;

public sealed class ClientOptionsTests
{
    private const string Pin = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    [Fact]
    public void Parse_PutFileThenUrl_ReadsBothAndFlags()
    {
        var options = ClientCommand.Parse(TransferVerb.Put, ["a.bin", "http://127.0.0.1:5080/files/a.bin", "--if-none-match", "--token", "t0k", "--no-progress"], out var error);

        Assert.Null(error);
        Assert.NotNull(options);
        Assert.Equal("a.bin", options.File);
        Assert.Equal(new Uri("http://127.0.0.1:5080/files/a.bin"), options.Url);
        Assert.True(options.IfNoneMatch);
        Assert.True(options.NoProgress);
        Assert.Equal("t0k", options.Token);
    }

    [Fact]
    public void Parse_GetUrlThenFile_ReadsBoth()
    {
        var options = ClientCommand.Parse(TransferVerb.Get, ["https://example.test/files/x", "x", "--certificate-sha256", Pin], out var error);

        Assert.Null(error);
        Assert.NotNull(options);
        Assert.Equal("x", options.File);
        Assert.Equal("https", options.Url.Scheme);
        Assert.Equal(Pin.ToUpperInvariant(), options.CertificateSha256);
    }

    [Fact]
    public void Parse_PinWithColons_IsNormalised()
    {
        var colons = string.Join(':', Enumerable.Range(0, 32).Select(i => Pin.Substring(i * 2, 2)));

        var options = ClientCommand.Parse(TransferVerb.Get, ["https://h/files/x", "x", "--certificate-sha256", colons], out _);

        Assert.Equal(Pin.ToUpperInvariant(), options?.CertificateSha256);
    }

    [Theory]
    [InlineData("get", "--if-none-match", "Unrecognized command or argument '--if-none-match'")]
    [InlineData("get", "--token", "'--token'")]
    [InlineData("get", "--bogus", "Unrecognized command or argument '--bogus'")]
    [InlineData("put", "--certificate-sha256=abc", "--certificate-sha256 needs the 64 hex digits")]
    public void Parse_BadOption_FailsWithReason(string verb, string option, string expected)
    {
        var verbValue = verb == "put" ? TransferVerb.Put : TransferVerb.Get;
        string[] positional = verb == "put" ? ["f", "http://h/files/f"] : ["http://h/files/f", "f"];

        var options = ClientCommand.Parse(verbValue, [.. positional, option], out var error);

        Assert.Null(options);
        Assert.Contains(expected, error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("ftp://h/files/f", "URL needs an http:// or https:// URL")]
    [InlineData("/files/f", "URL needs an http:// or https:// URL")]
    public void Parse_NotAnHttpUrl_Fails(string url, string expected)
    {
        var options = ClientCommand.Parse(TransferVerb.Get, [url, "f"], out var error);

        Assert.Null(options);
        Assert.Contains(expected, error, StringComparison.Ordinal);
    }

    [Fact]
    public void Parse_OneArgument_SaysWhatIsNeeded()
    {
        var options = ClientCommand.Parse(TransferVerb.Put, ["only.bin"], out var error);

        Assert.Null(options);
        Assert.Equal("Required argument 'URL' missing for command: 'put'.", error);
    }

    [Fact]
    public void Parse_PinOnHttp_Fails()
    {
        var options = ClientCommand.Parse(TransferVerb.Get, ["http://h/files/f", "f", "--certificate-sha256", Pin], out var error);

        Assert.Null(options);
        Assert.Contains("for https:// URLs", error, StringComparison.Ordinal);
    }

    [Fact]
    public void Parse_ShortPin_Fails()
    {
        var options = ClientCommand.Parse(TransferVerb.Get, ["https://h/files/f", "f", "--certificate-sha256", "abcd"], out var error);

        Assert.Null(options);
        Assert.Contains("64 hex digits", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Put_NoArguments_PrintsUsageAndExits2()
    {
        var run = await ClientRun.PutAsync();

        run.AssertExit(2);
        Assert.StartsWith("error: Required argument 'FILE' missing", run.Error, StringComparison.Ordinal);
        Assert.Contains("usage: freight put --help", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Get_Help_PrintsUsageAndExits0()
    {
        var run = await ClientRun.GetAsync("--help");

        run.AssertExit(0);
        Assert.Contains("freight get <URL> <FILE> [options]", run.Output, StringComparison.Ordinal);
        Assert.Contains("Exit codes: 0", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Put_MissingFile_Exits2()
    {
        var run = await ClientRun.PutAsync(Path.Combine(Path.GetTempPath(), Guid.NewGuid().ToString("N")), "http://127.0.0.1:1/files/x");

        run.AssertExit(2);
        Assert.Contains("no such file", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Get_BadOption_PrintsErrorAndUsageAndExits2()
    {
        var run = await ClientRun.GetAsync("http://127.0.0.1:1/files/x", "x", "--fast");

        run.AssertExit(2);
        Assert.StartsWith("error: Unrecognized command or argument '--fast'.", run.Error, StringComparison.Ordinal);
        Assert.Contains("usage: freight get --help", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Get_NothingListening_Exits1()
    {
        var directory = Directory.CreateTempSubdirectory("freight-client-");
        try
        {
            var file = Path.Combine(directory.FullName, "x");
            var run = await ClientRun.GetAsync(Load.RefusedPort.Url("/files/x").ToString(), file);

            run.AssertExit(1);
            Assert.StartsWith("error: http://127.0.0.1:", run.Error, StringComparison.Ordinal);
            Assert.False(File.Exists(file));
            Assert.False(File.Exists(file + ".partial"));
        }
        finally
        {
            directory.Delete(recursive: true);
        }
    }
}
