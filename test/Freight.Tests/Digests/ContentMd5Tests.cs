using System.Text;
using Freight.Digests;

namespace Freight.Tests.Digests;

/// <summary>Vectors computed with <c>printf 'Check Integrity!' | openssl dgst -md5</c> (and of the empty string).</summary>
public sealed class ContentMd5Tests
{
    private const string CheckIntegrity = "nwqq6b6ua/tTDk7B5M184w==";
    private static readonly byte[] CheckIntegrityMd5 = Convert.FromHexString("9f0aaae9beae6bfb530e4ec1e4cd7ce3");

    [Fact]
    public void TryParse_KnownVector_DecodesSixteenBytes()
    {
        Assert.True(ContentMd5.TryParse(CheckIntegrity, out var digest));

        Assert.Equal(CheckIntegrityMd5, digest);
    }

    [Fact]
    public void TryParse_SurroundingWhitespace_IsIgnored()
    {
        Assert.True(ContentMd5.TryParse(" \t" + CheckIntegrity + " ", out var digest));

        Assert.Equal(CheckIntegrityMd5, digest);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("nwqq6b6ua/tTDk7B5M184w")] // padding missing
    [InlineData("nwqq6b6ua/tTDk7B5M184w=")] // padding short
    [InlineData("nwqq6b6ua/tT Dk7B5M184w==")] // whitespace inside
    [InlineData("nwqq6b6ua_tTDk7B5M184w==")] // URL-safe alphabet
    [InlineData("nwqq6b6ua/tTDk7B5M184w==,nwqq6b6ua/tTDk7B5M184w==")] // two field lines joined
    [InlineData(Rfc9530Examples.Sha256)] // a SHA-256, not an MD5
    [InlineData(":nwqq6b6ua/tTDk7B5M184w==:")] // RFC 9530 syntax does not belong here
    public void TryParse_Malformed_Fails(string? value)
    {
        Assert.False(ContentMd5.TryParse(value, out var digest));

        Assert.Null(digest);
    }

    [Fact]
    public void Format_KnownDigest_WritesPaddedBase64()
    {
        Assert.Equal(CheckIntegrity, ContentMd5.Format(CheckIntegrityMd5));
    }

    [Fact]
    public void Format_WrongLength_Throws()
    {
        Assert.Throws<ArgumentException>(() => ContentMd5.Format(new byte[32]));
    }

    [Fact]
    public void TryParse_StreamedMd5OfVectorText_Matches()
    {
        using var digests = new StreamingDigests([DigestAlgorithm.Md5]);
        digests.Append(Encoding.ASCII.GetBytes("Check Integrity!"));
        var computed = digests.Complete();

        Assert.True(ContentMd5.TryParse(CheckIntegrity, out var sent));

        Assert.Null(computed.Verify(DigestAlgorithm.Md5, sent));
    }
}
