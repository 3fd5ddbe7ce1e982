using System.Net.Http.Headers;
using Freight.Bench.Client;

namespace Freight.Bench.Tests.Client;

public sealed class PartialDownloadTests : IDisposable
{
    private readonly DirectoryInfo _directory = Directory.CreateTempSubdirectory("freight-partial-");

    private string FilePath => Path.Combine(_directory.FullName, "data.bin");

    public void Dispose() => _directory.Delete(recursive: true);

    [Fact]
    public void TryGetResumePoint_PartialAndStrongETag_GivesSizeAndETag()
    {
        var partial = new PartialDownload(FilePath);
        File.WriteAllBytes(partial.PartialPath, new byte[1234]);
        File.WriteAllText(partial.ETagPath, "\"abc\"\n");

        Assert.True(partial.TryGetResumePoint(out var offset, out var etag));
        Assert.Equal(1234, offset);
        Assert.Equal(new EntityTagHeaderValue("\"abc\""), etag);
        Assert.Equal(FilePath + ".partial", partial.PartialPath);
        Assert.Equal(FilePath + ".partial.etag", partial.ETagPath);
    }

    [Theory]
    [InlineData(1234, "W/\"abc\"")]
    [InlineData(1234, "abc")]
    [InlineData(1234, "")]
    [InlineData(0, "\"abc\"")]
    [InlineData(1234, null)]
    public void TryGetResumePoint_NothingResumable_False(int partialBytes, string? sidecar)
    {
        var partial = new PartialDownload(FilePath);
        File.WriteAllBytes(partial.PartialPath, new byte[partialBytes]);
        if (sidecar is not null)
        {
            File.WriteAllText(partial.ETagPath, sidecar);
        }

        Assert.False(partial.TryGetResumePoint(out _, out _));
    }

    [Fact]
    public void RememberETag_WeakOrNone_ForgetsTheSidecar()
    {
        var partial = new PartialDownload(FilePath);
        partial.RememberETag(new EntityTagHeaderValue("\"v1\""));
        Assert.Equal("\"v1\"", File.ReadAllText(partial.ETagPath));

        partial.RememberETag(new EntityTagHeaderValue("\"v2\"", isWeak: true));
        Assert.False(File.Exists(partial.ETagPath));

        partial.RememberETag(null);
        Assert.False(File.Exists(partial.ETagPath));
    }

    [Fact]
    public void Complete_ReplacesTheFileAndDropsTheSidecar()
    {
        var partial = new PartialDownload(FilePath);
        File.WriteAllText(FilePath, "old");
        File.WriteAllText(partial.PartialPath, "new");
        partial.RememberETag(new EntityTagHeaderValue("\"v1\""));

        partial.Complete();

        Assert.Equal("new", File.ReadAllText(FilePath));
        Assert.False(File.Exists(partial.PartialPath));
        Assert.False(File.Exists(partial.ETagPath));
    }

    [Fact]
    public void Open_WhileOpen_SecondOpenFails()
    {
        var partial = new PartialDownload(FilePath);
        using var first = partial.Open();

        Assert.Throws<IOException>(() => partial.Open().Dispose());
    }
}
