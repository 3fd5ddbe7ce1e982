using Freight.Files;

namespace Freight.Tests.Files;

public sealed class StoragePrefixTests
{
    private static StoragePrefix Prefix(string? raw)
    {
        Assert.True(StoragePrefix.TryParse(raw, out var prefix, out var error), error);
        return prefix;
    }

    private static StorageKey Key(string raw)
    {
        Assert.True(StorageKey.TryParse(raw, out var key, out var error), error);
        return key;
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    public void TryParse_NullOrEmpty_IsRoot(string? raw)
    {
        var prefix = Prefix(raw);

        Assert.True(prefix.IsRoot);
        Assert.Same(StoragePrefix.Root, prefix);
        Assert.Equal("", prefix.Value);
    }

    [Theory]
    [InlineData("photos", "photos")]
    [InlineData("photos/2024", "photos/2024")]
    [InlineData("photos/2024/", "photos/2024")]
    [InlineData(".config/", ".config")]
    public void TryParse_Path_ValueWithoutTrailingSlash(string raw, string value)
    {
        var prefix = Prefix(raw);

        Assert.False(prefix.IsRoot);
        Assert.Equal(value, prefix.Value);
    }

    [Theory]
    [InlineData("/", "must be relative")]
    [InlineData("/photos", "must be relative")]
    [InlineData("photos//", "must not end with '/'")]
    [InlineData("a//b", "is empty ('//')")]
    [InlineData("../x", "'.' and '..' are not allowed")]
    [InlineData("a/..", "'.' and '..' are not allowed")]
    [InlineData("a\\b", "backslash")]
    [InlineData("a\u0001", "control character")]
    [InlineData(".freight-uploads", "reserved")]
    [InlineData("a%2Fb/", "'%2F'")]
    public void TryParse_BrokenRule_RejectedWithReason(string raw, string reason)
    {
        Assert.False(StoragePrefix.TryParse(raw, out var prefix, out var error));
        Assert.Null(prefix);
        Assert.Contains(reason, error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("", "b.txt", "b.txt")]
    [InlineData("a", "b.txt", "a/b.txt")]
    [InlineData("a/b", "c/d.txt", "a/b/c/d.txt")]
    public void TryAppend_ValidName_JoinsWithSlash(string prefix, string name, string key)
    {
        Assert.True(Prefix(prefix).TryAppend(name, out var appended, out var error), error);
        Assert.Equal(Key(key), appended);
    }

    [Theory]
    [InlineData("a", null, "empty")]
    [InlineData("a", "", "empty")]
    [InlineData("a", "../x", "'.' and '..' are not allowed")]
    [InlineData("a", "/etc/passwd", "must be relative")]
    [InlineData("a", "C:\\fakepath\\x.txt", "backslash")]
    [InlineData("a", "x.freight-tmp", "reserved")]
    [InlineData("", "..", "'.' and '..' are not allowed")]
    public void TryAppend_BadName_RejectedWithReason(string prefix, string? name, string reason)
    {
        Assert.False(Prefix(prefix).TryAppend(name, out var key, out var error));
        Assert.Null(key);
        Assert.Contains(reason, error, StringComparison.Ordinal);
    }

    [Fact]
    public void TryAppend_CombinedOver1024Bytes_Rejected()
    {
        var prefix = Prefix(string.Join('/', Enumerable.Repeat(new string('p', 200), 4)));   // 803 bytes
        var name = new string('n', 220);                                                      // +1 +220 = 1024

        Assert.True(prefix.TryAppend(name, out _, out _));
        Assert.False(prefix.TryAppend(name + "n", out _, out var error));
        Assert.Equal("The path is at least 1025 bytes long in UTF-8; the limit is 1024.", error);
    }

    [Theory]
    [InlineData("", "a.txt", true)]
    [InlineData("", "a/b/c.txt", true)]
    [InlineData("photos", "photos/a.jpg", true)]
    [InlineData("photos", "photos/2024/a.jpg", true)]
    [InlineData("photos", "photos", false)]
    [InlineData("photos", "photos-old/a.jpg", false)]
    [InlineData("photos", "photosa.jpg", false)]
    [InlineData("photos/2024", "photos/a.jpg", false)]
    [InlineData("Photos", "photos/a.jpg", false)]
    public void Contains_Key_TrueOnlyForWholeSegmentDescendants(string prefix, string key, bool contained)
    {
        Assert.Equal(contained, Prefix(prefix).Contains(Key(key)));
    }
}
