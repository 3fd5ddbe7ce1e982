using System.Text;
using Freight.Files;

namespace Freight.Tests.Files;

public sealed class StorageKeyTests
{
    private static string Rejected(string? raw)
    {
        Assert.False(StorageKey.TryParse(raw, out var key, out var error));
        Assert.Null(key);
        Assert.NotNull(error);
        return error;
    }

    private static StorageKey Accepted(string raw)
    {
        Assert.True(StorageKey.TryParse(raw, out var key, out var error), error);
        Assert.Null(error);
        return key;
    }

    /// <summary>Segments of 200 'a's (the last one shorter) joined by '/', exactly <paramref name="bytes"/> long.</summary>
    private static string AsciiKeyOfLength(int bytes)
    {
        var key = new StringBuilder();
        while (key.Length < bytes)
        {
            if (key.Length > 0)
            {
                key.Append('/');
            }

            key.Append('a', Math.Min(200, bytes - key.Length));
        }

        return key.ToString();
    }

    [Theory]
    [InlineData("a")]
    [InlineData("a/b.txt")]
    [InlineData("dir/sub/file.tar.gz")]
    [InlineData("ünïcødé/文件.txt")]
    [InlineData("emoji/😀.png")]
    [InlineData("a b/c d")]
    [InlineData("a+b&c=d;e")]
    [InlineData("100%.txt")]
    [InlineData("%41%2")]
    [InlineData("a..b/...")]
    [InlineData("C:")]
    [InlineData("nbsp\u00A0name")]
    public void TryParse_ValidKey_KeepsValueExactly(string raw)
    {
        Assert.Equal(raw, Accepted(raw).Value);
    }

    [Theory]
    [InlineData(".gitignore")]
    [InlineData("a/.env")]
    [InlineData(".config/app.json")]
    [InlineData("freight-tmp")]
    [InlineData("x.freight")]
    [InlineData("x.freight-tmp.txt")]
    [InlineData("x.freight-meta.bak")]
    [InlineData(".freigh")]
    [InlineData("freight/.x")]
    public void TryParse_HiddenOrLookalikeName_Accepted(string raw)
    {
        Assert.Equal(raw, Accepted(raw).Value);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    public void TryParse_NullOrEmpty_RejectedAsEmpty(string? raw)
    {
        Assert.Contains("empty", Rejected(raw), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("..")]
    [InlineData(".")]
    [InlineData("../x")]
    [InlineData("./x")]
    [InlineData("a/../b")]
    [InlineData("a/./b")]
    [InlineData("a/..")]
    [InlineData("a/b/.")]
    public void TryParse_DotSegment_Rejected(string raw)
    {
        Assert.Contains("'.' and '..' are not allowed", Rejected(raw), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("/abs")]
    [InlineData("/")]
    [InlineData("//a")]
    [InlineData("/etc/passwd")]
    public void TryParse_LeadingSlash_RejectedAsAbsolute(string raw)
    {
        Assert.Contains("must be relative", Rejected(raw), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("a/")]
    [InlineData("a/b/")]
    public void TryParse_TrailingSlash_Rejected(string raw)
    {
        Assert.Contains("must not end with '/'", Rejected(raw), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("a//b", "Segment 2 ")]
    [InlineData("a/b//c", "Segment 3 ")]
    public void TryParse_EmptySegment_RejectedNamingTheSegment(string raw, string segment)
    {
        var error = Rejected(raw);

        Assert.Contains("is empty ('//')", error, StringComparison.Ordinal);
        Assert.StartsWith(segment, error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("a\\b")]
    [InlineData("..\\x")]
    [InlineData("C:\\Windows")]
    [InlineData("dir\\")]
    public void TryParse_Backslash_Rejected(string raw)
    {
        Assert.Contains("backslash", Rejected(raw), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(0x00)] // %00 decoded
    [InlineData(0x01)]
    [InlineData(0x09)]
    [InlineData(0x0A)]
    [InlineData(0x0D)]
    [InlineData(0x1B)]
    [InlineData(0x1F)]
    [InlineData(0x7F)]
    [InlineData(0x80)]
    [InlineData(0x85)]
    [InlineData(0x9F)]
    public void TryParse_ControlCharacter_RejectedNamingCodePointAndPosition(int codePoint)
    {
        var raw = "ab" + (char)codePoint + "c";

        var error = Rejected(raw);

        Assert.Contains($"control character U+{codePoint:X4} at character 3", error, StringComparison.Ordinal);
    }

    // Built in the test: theory data travels as UTF-8, which would turn a lone surrogate into U+FFFD.
    [Theory]
    [InlineData("a", 0xD800, "b")]
    [InlineData("a", 0xDC00, "b")]
    [InlineData("ends", 0xD83D, "")]
    [InlineData("", 0xDE00, "\uD83D\uDE00")]
    public void TryParse_LoneSurrogate_Rejected(string before, int surrogate, string after)
    {
        var raw = before + (char)surrogate + after;

        Assert.Contains($"unpaired UTF-16 surrogate U+{surrogate:X4} at character {before.Length + 1}", Rejected(raw), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("a%2Fb")]
    [InlineData("a%2fb")]
    [InlineData("..%2F..%2Fetc%2Fpasswd")]
    [InlineData("%2F")]
    public void TryParse_EncodedSlash_Rejected(string raw)
    {
        Assert.Contains("'%2F'", Rejected(raw), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(".freight-meta")]
    [InlineData("x.freight-tmp")]
    [InlineData("a/.b.0123456789abcdef0123456789abcdef.freight-tmp")]
    [InlineData("a/.b.freight-meta")]
    [InlineData(".freight")]
    [InlineData(".freight-uploads/x")]
    [InlineData("dir.freight-meta/x")]
    [InlineData(".FREIGHT-META")]
    [InlineData("X.Freight-Tmp")]
    public void TryParse_ReservedStoreName_Rejected(string raw)
    {
        Assert.Contains("reserved for the store's own files", Rejected(raw), StringComparison.Ordinal);
    }

    [Fact]
    public void TryParse_Segment240Bytes_Accepted()
    {
        Accepted("dir/" + new string('a', 240));
    }

    [Fact]
    public void TryParse_Segment241Bytes_Rejected()
    {
        Assert.Equal(
            "Segment 2 of the path is 241 bytes long in UTF-8; the limit is 240.",
            Rejected("dir/" + new string('a', 241)));
    }

    [Fact]
    public void TryParse_TwoByteCharacters_CountedAsUtf8Bytes()
    {
        // 120 × 'é' (2 bytes each) = 240 bytes in 120 chars; 'é' × 120 + 'a' = 241 bytes in 121 chars.
        Accepted(new string('é', 120));

        Assert.Contains("241 bytes", Rejected(new string('é', 120) + "a"), StringComparison.Ordinal);
    }

    [Fact]
    public void TryParse_SurrogatePairs_CountedAsFourBytes()
    {
        var emoji59 = string.Concat(Enumerable.Repeat("😀", 59));

        Accepted(emoji59 + "abcd");                               // 236 + 4 = 240 bytes

        Assert.Contains("241 bytes", Rejected(emoji59 + "abcde"), StringComparison.Ordinal);
    }

    [Fact]
    public void TryParse_Key1024Bytes_Accepted()
    {
        var raw = AsciiKeyOfLength(1024);

        Assert.Equal(1024, Encoding.UTF8.GetByteCount(raw));
        Accepted(raw);
    }

    [Fact]
    public void TryParse_Key1025Bytes_Rejected()
    {
        // 1024 chars, so the count comes from the UTF-8 scan rather than the quick length check.
        var raw = AsciiKeyOfLength(1023) + "é";

        Assert.Equal(1024, raw.Length);
        Assert.Equal("The path is 1025 bytes long in UTF-8; the limit is 1024.", Rejected(raw));
    }

    [Fact]
    public void TryParse_KeyOf1025Chars_RejectedBeforeScanning()
    {
        Assert.Equal("The path is at least 1025 bytes long in UTF-8; the limit is 1024.", Rejected(new string('a', 1025)));
    }

    [Fact]
    public void TryParse_KeyOver1024BytesInFewerChars_Rejected()
    {
        // 5 segments of 80 × '文' (3 bytes each): 404 chars, 1204 bytes.
        var raw = string.Join('/', Enumerable.Repeat(new string('文', 80), 5));

        Assert.Equal("The path is 1204 bytes long in UTF-8; the limit is 1024.", Rejected(raw));
    }

    [Fact]
    public void TryParse_DecomposedName_KeptDistinctFromPrecomposed()
    {
        var nfd = Accepted("caf" + "e\u0301" + ".txt");
        var nfc = Accepted("caf\u00E9.txt");

        Assert.Equal("cafe\u0301.txt", nfd.Value);
        Assert.NotEqual(nfc, nfd);
    }

    [Fact]
    public void Equality_SameValue_EqualAndSameHash()
    {
        var a = Accepted("a/b.txt");
        var b = Accepted(string.Concat("a/", "b.txt"));

        Assert.Equal(a, b);
        Assert.Equal(a.GetHashCode(), b.GetHashCode());
        Assert.NotEqual(a, Accepted("A/b.txt"));
    }

    [Theory]
    [InlineData("a/b/c.txt", "c.txt")]
    [InlineData("c.txt", "c.txt")]
    public void Name_Key_IsLastSegment(string raw, string name)
    {
        Assert.Equal(name, Accepted(raw).Name);
    }

    [Fact]
    public void ToString_Key_IsValue()
    {
        Assert.Equal("a/b.txt", Accepted("a/b.txt").ToString());
    }
}
