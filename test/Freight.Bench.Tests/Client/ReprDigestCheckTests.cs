using System.Security.Cryptography;
using System.Text;
using Freight.Bench.Client;
using Freight.Digests;
using Microsoft.Extensions.Primitives;

namespace Freight.Bench.Tests.Client;

public sealed class ReprDigestCheckTests
{
    private static readonly byte[] Hello = Encoding.ASCII.GetBytes("hello world");

    // sha256("hello world"), as RFC 9530 examples and `sha256sum` know it.
    private const string HelloSha256 = "sha-256=:uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek=:";

    [Fact]
    public void Check_MatchingSha256_Verified()
    {
        var verdict = ReprDigestCheck.Check(HelloSha256, Hash(Hello, DigestAlgorithm.Sha256), out var detail);

        Assert.Equal(DigestVerdict.Verified, verdict);
        Assert.Null(detail);
    }

    [Fact]
    public void Check_DigestOfOtherBytes_MismatchNamesBothValues()
    {
        var other = DigestFields.Format(DigestAlgorithm.Sha256, SHA256.HashData(Encoding.ASCII.GetBytes("hello worle")));

        var verdict = ReprDigestCheck.Check(other, Hash(Hello, DigestAlgorithm.Sha256), out var detail);

        Assert.Equal(DigestVerdict.Mismatch, verdict);
        Assert.Contains(Convert.ToHexStringLower(SHA256.HashData(Hello)), detail, StringComparison.Ordinal);
        Assert.StartsWith("sha-256 of the bytes is ", detail, StringComparison.Ordinal);
    }

    [Fact]
    public void Check_NoField_Absent()
    {
        Assert.Equal(DigestVerdict.Absent, ReprDigestCheck.Check(StringValues.Empty, Hash(Hello, DigestAlgorithm.Sha256), out _));
    }

    [Fact]
    public void Check_OnlyAlgorithmsNotComputed_Absent()
    {
        var field = $"unixsum=:AAAA:, {DigestFields.Format(DigestAlgorithm.Sha512, SHA512.HashData(Hello))}";

        Assert.Equal(DigestVerdict.Absent, ReprDigestCheck.Check(field, Hash(Hello, DigestAlgorithm.Sha256), out _));
    }

    [Theory]
    [InlineData("sha-256=uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek=")]
    [InlineData("sha-256=:c2hvcnQ=:")]
    [InlineData("SHA-256=:uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek=:")]
    public void Check_UnreadableField_Malformed(string field)
    {
        Assert.Equal(DigestVerdict.Malformed, ReprDigestCheck.Check(field, Hash(Hello, DigestAlgorithm.Sha256), out var detail));
        Assert.StartsWith("unreadable Repr-Digest", detail, StringComparison.Ordinal);
    }

    [Fact]
    public void AlgorithmsFor_Sha512Only_AddsItAfterSha256()
    {
        var field = DigestFields.Format(DigestAlgorithm.Sha512, SHA512.HashData(Hello));

        var algorithms = ReprDigestCheck.AlgorithmsFor(field);

        Assert.Equal([DigestAlgorithm.Sha256, DigestAlgorithm.Sha512], algorithms);
        Assert.Equal(DigestVerdict.Verified, ReprDigestCheck.Check(field, Hash(Hello, [.. algorithms]), out _));
    }

    [Fact]
    public void Check_Sha256RightSha512Wrong_Mismatch()
    {
        var field = $"{HelloSha256}, {DigestFields.Format(DigestAlgorithm.Sha512, new byte[64])}";

        Assert.Equal(DigestVerdict.Mismatch, ReprDigestCheck.Check(field, Hash(Hello, DigestAlgorithm.Sha256, DigestAlgorithm.Sha512), out var detail));
        Assert.StartsWith("sha-512", detail, StringComparison.Ordinal);
    }

    private static ComputedDigests Hash(byte[] bytes, params DigestAlgorithm[] algorithms)
    {
        using var digests = new StreamingDigests(algorithms);
        digests.Append(bytes);
        return digests.Complete();
    }
}
