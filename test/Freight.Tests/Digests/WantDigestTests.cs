using Freight.Digests;
using Microsoft.Extensions.Primitives;

namespace Freight.Tests.Digests;

public sealed class WantDigestTests
{
    private static DigestAlgorithm? Select(StringValues value)
    {
        Assert.True(WantDigest.TryParse(value, out var preferences));
        return WantDigest.SelectPreferred(preferences);
    }

    [Fact]
    public void TryParse_Rfc9530Example_ReadsEveryWeight()
    {
        Assert.True(WantDigest.TryParse("sha-512=3, sha-256=10, unixsum=0", out var preferences));

        Assert.Equal(3, preferences.Count);
        Assert.Equal(3, preferences["sha-512"]);
        Assert.Equal(10, preferences["sha-256"]);
        Assert.Equal(0, preferences["unixsum"]);
    }

    [Fact]
    public void SelectPreferred_Rfc9530Example_ChoosesHighestWeight()
    {
        Assert.Same(DigestAlgorithm.Sha256, Select("sha-512=3, sha-256=10, unixsum=0"));
        Assert.Same(DigestAlgorithm.Sha512, Select("sha-512=10, sha-256=1, md5=0"));
    }

    [Fact]
    public void SelectPreferred_SingleAlgorithm_ChoosesIt()
    {
        Assert.Same(DigestAlgorithm.Sha256, Select("sha-256=1"));
        Assert.Same(DigestAlgorithm.Sha512, Select("sha-512=1"));
    }

    [Fact]
    public void SelectPreferred_EqualWeights_ChoosesSha256()
    {
        Assert.Same(DigestAlgorithm.Sha256, Select("sha-512=5, sha-256=5"));
    }

    [Fact]
    public void SelectPreferred_ZeroWeight_IsNotAcceptable()
    {
        Assert.Same(DigestAlgorithm.Sha512, Select("sha-256=0, sha-512=1"));
        Assert.Null(Select("sha-256=0, sha-512=0"));
    }

    [Fact]
    public void SelectPreferred_OnlyUnknownOrDeprecatedAlgorithms_ReturnsNull()
    {
        Assert.Null(Select("md5=10, unixsum=9, sha-384=8"));
    }

    [Fact]
    public void SelectPreferred_EmptyField_ReturnsNull()
    {
        Assert.Null(Select(StringValues.Empty));
    }

    [Fact]
    public void SelectPreferred_AvailableSubset_ChoosesAmongAvailableOnly()
    {
        Assert.True(WantDigest.TryParse("sha-512=10, sha-256=1", out var preferences));

        Assert.Same(DigestAlgorithm.Sha256, WantDigest.SelectPreferred(preferences, [DigestAlgorithm.Sha256]));
        Assert.Null(WantDigest.SelectPreferred(preferences, []));
    }

    [Fact]
    public void SelectPreferred_EqualWeights_FollowsAvailableOrder()
    {
        Assert.True(WantDigest.TryParse("sha-256=5, sha-512=5", out var preferences));

        Assert.Same(DigestAlgorithm.Sha512, WantDigest.SelectPreferred(preferences, [DigestAlgorithm.Sha512, DigestAlgorithm.Sha256]));
    }

    [Fact]
    public void SelectPreferred_Md5Available_IsNeverChosen()
    {
        Assert.True(WantDigest.TryParse("md5=10", out var preferences));

        Assert.Null(WantDigest.SelectPreferred(preferences, [DigestAlgorithm.Md5]));
    }

    [Fact]
    public void TryParse_MultipleLinesWithParameters_CombinesAndIgnoresParameters()
    {
        var lines = new StringValues(["sha-256=2;note=\"x\"", " sha-512=7 "]);

        Assert.True(WantDigest.TryParse(lines, out var preferences));

        Assert.Equal(2, preferences["sha-256"]);
        Assert.Equal(7, preferences["sha-512"]);
        Assert.Same(DigestAlgorithm.Sha512, WantDigest.SelectPreferred(preferences));
    }

    [Theory]
    [InlineData("sha-256=11")] // above 10
    [InlineData("sha-256=-1")] // below 0
    [InlineData("sha-256=0.5")] // a Decimal
    [InlineData("sha-256=1000000000000000")] // 16 digits
    [InlineData("sha-256=:AAAA:")] // a Byte Sequence
    [InlineData("sha-256=high")] // a Token
    [InlineData("sha-256")] // a Boolean
    [InlineData("Sha-256=1")] // uppercase key
    [InlineData("sha-256=1,")] // trailing comma
    [InlineData("sha-256=1 sha-512=2")] // no comma
    [InlineData("sha-256;q=1")] // parameters on a Boolean
    public void TryParse_MalformedField_FailsWithNoPreferences(string value)
    {
        Assert.False(WantDigest.TryParse(value, out var preferences));

        Assert.Empty(preferences);
    }
}
