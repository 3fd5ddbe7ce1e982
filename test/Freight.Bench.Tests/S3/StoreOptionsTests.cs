using Freight.Bench.Suites.Files;

namespace Freight.Bench.Tests.S3;

/// <summary><c>--store fs|s3</c>: s3 with the files suite alone, against the embedded server; fs by default.</summary>
public sealed class StoreOptionsTests
{
    [Fact]
    public void Parse_NoStore_FileSystem()
    {
        var options = BenchCommand.Parse(["--suite", "files"], out var error);

        Assert.Null(error);
        Assert.Equal(FilesSuite.FileSystemStore, options!.Store);
    }

    [Theory]
    [InlineData("fs")]
    [InlineData("s3")]
    public void Parse_StoreWithFilesSuite_Kept(string store)
    {
        var options = BenchCommand.Parse(["--suite", "files", "--store", store, "--quick"], out var error);

        Assert.Null(error);
        Assert.Equal(store, options!.Store);
        Assert.Equal(["files"], options.Suites);
    }

    [Theory]
    [InlineData("--store", "s3")]
    [InlineData("--store", "s3", "--suite", "json")]
    [InlineData("--suite", "files", "--suite", "static", "--store", "s3")]
    [InlineData("--suite", "tus", "--store", "s3")]
    public void Parse_StoreS3WithoutTheFilesSuiteAlone_RefusedWithWhy(params string[] args)
    {
        var options = BenchCommand.Parse(args, out var error);

        Assert.Null(options);
        Assert.Equal("--store s3 measures the files suite only: use it with --suite files and no other suite.", error);
    }

    [Fact]
    public void Parse_StoreS3WithTarget_Refused()
    {
        var options = BenchCommand.Parse(["--suite", "files", "--store", "s3", "--target", "http://127.0.0.1:5000/"], out var error);

        Assert.Null(options);
        Assert.Contains("--target", error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("S3")]
    [InlineData("minio")]
    [InlineData("")]
    public void Parse_UnknownStore_RefusedNamingTheOptionAndTheStores(string store)
    {
        var options = BenchCommand.Parse(["--suite", "files", "--store", store], out var error);

        Assert.Null(options);
        Assert.Equal($"--store: unknown store '{store}'; stores: fs, s3.", error);
    }

    [Fact]
    public void Parse_StoreWithoutValue_Refused()
    {
        Assert.Null(BenchCommand.Parse(["--suite", "files", "--store"], out var error));
        Assert.Contains("'--store'", error, StringComparison.Ordinal);
    }

    [Fact]
    public void Usage_NamesTheStoreOption()
    {
        var help = Cli.FreightCli.Help("bench");

        Assert.Matches(@"\n  --store <fs\|s3> +Files suite:", help);
    }
}
