using System.Security.Cryptography;
using Freight.Digests;
using Microsoft.Extensions.Primitives;

namespace Freight.Tests.Digests;

public sealed class DigestFieldsTests
{
    private static readonly byte[] Sha256 = Convert.FromBase64String(Rfc9530Examples.Sha256);
    private static readonly byte[] Sha512 = Convert.FromBase64String(Rfc9530Examples.Sha512);

    [Fact]
    public void TryParse_Rfc9530Example_DecodesDigestsOfTheExampleContent()
    {
        Assert.True(DigestFields.TryParse(Rfc9530Examples.BothDigests, out var digests));

        Assert.Equal(2, digests.Count);
        Assert.Equal(SHA256.HashData(Rfc9530Examples.HelloWorld), digests["sha-256"]);
        Assert.Equal(SHA512.HashData(Rfc9530Examples.HelloWorld), digests["sha-512"]);
    }

    [Fact]
    public void TryParse_MultipleFieldLines_CombinesThemAsOneList()
    {
        var lines = new StringValues([$"sha-256=:{Rfc9530Examples.Sha256}:", $"sha-512=:{Rfc9530Examples.Sha512}:, unixsum=:AQID:"]);

        Assert.True(DigestFields.TryParse(lines, out var digests));

        Assert.Equal(Sha256, digests["sha-256"]);
        Assert.Equal(Sha512, digests["sha-512"]);
        Assert.Equal([1, 2, 3], digests["unixsum"]);
    }

    [Fact]
    public void TryParse_EmptyLineAmongLines_IsIgnored()
    {
        var lines = new StringValues(["", $"sha-256=:{Rfc9530Examples.Sha256}:", " \t"]);

        Assert.True(DigestFields.TryParse(lines, out var digests));

        Assert.Equal(Sha256, Assert.Single(digests).Value);
    }

    [Fact]
    public void TryParse_OptionalWhitespaceAroundMembers_IsAccepted()
    {
        var value = $"  sha-256=:{Rfc9530Examples.Sha256}:\t ,\t sha-512=:{Rfc9530Examples.Sha512}:  ";

        Assert.True(DigestFields.TryParse(value, out var digests));

        Assert.Equal(Sha256, digests["sha-256"]);
        Assert.Equal(Sha512, digests["sha-512"]);
    }

    [Fact]
    public void TryParse_ParametersOfEveryType_AreIgnored()
    {
        var value = $"sha-256=:{Rfc9530Examples.Sha256}:;a=1;b=-2.5;c=\"x \\\" y\";d=tok/en:1;e=:AQ==:;f=?0;g;h=@1700000000;i=%\"caf%c3%a9\", "
            + $"sha-512=:{Rfc9530Examples.Sha512}:; *k=*";

        Assert.True(DigestFields.TryParse(value, out var digests));

        Assert.Equal(Sha256, digests["sha-256"]);
        Assert.Equal(Sha512, digests["sha-512"]);
    }

    [Fact]
    public void TryParse_UnknownAndDeprecatedKeys_AreKeptRaw()
    {
        var value = $"unixsum=:AQID:, sha-256=:{Rfc9530Examples.Sha256}:, x-custom.algo*1=::, md5=:AAAA:";

        Assert.True(DigestFields.TryParse(value, out var digests));

        Assert.Equal(4, digests.Count);
        Assert.Equal([1, 2, 3], digests["unixsum"]);
        Assert.Empty(digests["x-custom.algo*1"]);
        Assert.Equal([0, 0, 0], digests["md5"]);
        Assert.Equal([DigestAlgorithm.Sha256], DigestFields.VerifiableAlgorithms(digests));
    }

    [Fact]
    public void TryParse_RepeatedKey_KeepsLastValue()
    {
        var other = new byte[32];
        other[0] = 1;
        var value = $"sha-256=:{Rfc9530Examples.Sha256}:, sha-256=:{Convert.ToBase64String(other)}:";

        Assert.True(DigestFields.TryParse(value, out var digests));

        Assert.Equal(other, Assert.Single(digests).Value);
    }

    [Fact]
    public void TryParse_UnpaddedBase64_IsAccepted()
    {
        Assert.True(DigestFields.TryParse($"sha-256=:{Rfc9530Examples.Sha256.TrimEnd('=')}:", out var digests));

        Assert.Equal(Sha256, digests["sha-256"]);
    }

    [Fact]
    public void TryParse_NonZeroPadBits_IsAccepted()
    {
        // "AR==" sets pad bits that "AQ==" leaves clear; RFC 8941 §4.2.7 says parsers should not fail on them.
        Assert.True(DigestFields.TryParse("unixsum=:AR==:", out var digests));

        Assert.Equal([1], digests["unixsum"]);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("   ")]
    public void TryParse_AbsentOrEmptyField_GivesEmptyDictionary(string? value)
    {
        Assert.True(DigestFields.TryParse(value, out var digests));

        Assert.Empty(digests);
    }

    [Theory]
    [InlineData("sha-256=" + Rfc9530Examples.Sha256)] // missing colons: a Token, not a Byte Sequence
    [InlineData("sha-256=:" + Rfc9530Examples.Sha256)] // missing closing colon
    [InlineData("sha-256=" + Rfc9530Examples.Sha256 + ":")] // missing opening colon
    [InlineData("sha-256=:X48E9qOokqqrvdts8nOJ RJN3OWDUoyWxBf7kbu9DBPE=:")] // space inside
    [InlineData("sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBP*:")] // not base64
    [InlineData("sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBP_:")] // URL-safe alphabet
    [InlineData("sha-256=:X48E9qOokqqrvd=s8nOJRJN3OWDUoyWxBf7kbu9DBPE=:")] // padding in the middle
    [InlineData("unixsum=:AQIDB:")] // 5 characters cannot be base64
    [InlineData("sha-256=::")] // empty: not 32 bytes
    [InlineData("sha-256=:AAAA:")] // 3 bytes for sha-256
    [InlineData("sha-512=:" + Rfc9530Examples.Sha256 + ":")] // a sha-256 digest under sha-512
    [InlineData("SHA-256=:" + Rfc9530Examples.Sha256 + ":")] // keys are lowercase
    [InlineData("1sha=:AAAA:")] // keys start with lcalpha or "*"
    [InlineData("=:AAAA:")] // no key
    [InlineData("sha-256")] // a Boolean member
    [InlineData("sha-256=\"" + Rfc9530Examples.Sha256 + "\"")] // a String
    [InlineData("sha-256=(:" + Rfc9530Examples.Sha256 + ":)")] // an Inner List
    [InlineData("sha-256=:" + Rfc9530Examples.Sha256 + ":,")] // trailing comma
    [InlineData(",sha-256=:" + Rfc9530Examples.Sha256 + ":")] // leading comma
    [InlineData("sha-256=:" + Rfc9530Examples.Sha256 + ": unixsum=:AQID:")] // no comma between members
    [InlineData("sha-256=:" + Rfc9530Examples.Sha256 + ":;A=1")] // uppercase parameter key
    [InlineData("sha-256=:" + Rfc9530Examples.Sha256 + ":;a=")] // parameter without a value
    [InlineData("sha-256=:" + Rfc9530Examples.Sha256 + ":;a=\"open")] // unterminated String parameter
    [InlineData("sha-256=:" + Rfc9530Examples.Sha256 + ":;a=1.2345")] // four fraction digits
    [InlineData("sha-256=:" + Rfc9530Examples.Sha256 + ": ;a=1")] // space before ";"
    public void TryParse_MalformedField_FailsWithEmptyDictionary(string value)
    {
        Assert.False(DigestFields.TryParse(value, out var digests));

        Assert.Empty(digests);
    }

    [Fact]
    public void TryParse_OneMalformedLineAmongSeveral_FailsTheWholeField()
    {
        var lines = new StringValues([$"sha-256=:{Rfc9530Examples.Sha256}:", "sha-512=oops"]);

        Assert.False(DigestFields.TryParse(lines, out var digests));

        Assert.Empty(digests);
    }

    [Fact]
    public void VerifiableAlgorithms_BothActiveKeys_ListsSha256ThenSha512()
    {
        Assert.True(DigestFields.TryParse($"sha-512=:{Rfc9530Examples.Sha512}:, sha-256=:{Rfc9530Examples.Sha256}:", out var digests));

        Assert.Equal([DigestAlgorithm.Sha256, DigestAlgorithm.Sha512], DigestFields.VerifiableAlgorithms(digests));
    }

    [Fact]
    public void Format_Rfc9530ExampleDigests_WritesTheExampleFieldValue()
    {
        var value = DigestFields.Format([(DigestAlgorithm.Sha256, Sha256), (DigestAlgorithm.Sha512, Sha512)]);

        Assert.Equal(Rfc9530Examples.BothDigests, value);
    }

    [Fact]
    public void Format_SingleDigest_WritesOneMember()
    {
        Assert.Equal($"sha-256=:{Rfc9530Examples.Sha256}:", DigestFields.Format(DigestAlgorithm.Sha256, Sha256));
    }

    [Fact]
    public void Format_ThenTryParse_RoundTrips()
    {
        var value = DigestFields.Format([(DigestAlgorithm.Sha512, Sha512), (DigestAlgorithm.Sha256, Sha256)]);

        Assert.True(DigestFields.TryParse(value, out var digests));

        Assert.Equal(Sha256, digests["sha-256"]);
        Assert.Equal(Sha512, digests["sha-512"]);
    }

    [Fact]
    public void Format_Md5_Throws()
    {
        Assert.Throws<ArgumentException>(() => DigestFields.Format(DigestAlgorithm.Md5, new byte[16]));
    }

    [Fact]
    public void Format_DigestOfWrongLength_Throws()
    {
        Assert.Throws<ArgumentException>(() => DigestFields.Format([(DigestAlgorithm.Sha512, Sha256)]));
    }

    [Fact]
    public void Format_NoDigests_Throws()
    {
        Assert.Throws<ArgumentException>(() => DigestFields.Format([]));
    }
}
