using Freight.Bench.Client;

namespace Freight.Bench.Tests.Client;

public sealed class ContentTypesTests
{
    [Theory]
    [InlineData("report.json", "application/json")]
    [InlineData("/data/photo.JPG", "image/jpeg")]
    [InlineData("archive.tar.gz", "application/x-gzip")]
    [InlineData("disk.img.unknownext", "application/octet-stream")]
    [InlineData("README", "application/octet-stream")]
    public void For_FileName_TypeFromExtension(string path, string expected)
    {
        Assert.Equal(expected, ContentTypes.For(path));
    }
}
