using System.Security.Cryptography;
using Freight.Digests;

namespace Freight.Tests.Digests;

public sealed class DigestAlgorithmTests
{
    [Theory]
    [InlineData("sha-256", 32)]
    [InlineData("sha-512", 64)]
    public void TryGetFieldAlgorithm_ActiveRegistryKey_MapsToAlgorithm(string key, int hashLength)
    {
        Assert.True(DigestAlgorithm.TryGetFieldAlgorithm(key, out var algorithm));
        Assert.Equal(key, algorithm.Name);
        Assert.Equal(hashLength, algorithm.HashLength);
        Assert.False(DigestAlgorithm.IsDeprecatedKey(key));
    }

    [Theory]
    [InlineData("md5")]
    [InlineData("sha")]
    [InlineData("unixsum")]
    [InlineData("unixcksum")]
    [InlineData("adler")]
    [InlineData("crc32c")]
    public void TryGetFieldAlgorithm_DeprecatedKey_IsRecognisedButUnsupported(string key)
    {
        Assert.False(DigestAlgorithm.TryGetFieldAlgorithm(key, out var algorithm));
        Assert.Null(algorithm);
        Assert.True(DigestAlgorithm.IsDeprecatedKey(key));
    }

    [Theory]
    [InlineData("SHA-256")]
    [InlineData("sha256")]
    [InlineData("sha-384")]
    [InlineData("")]
    public void TryGetFieldAlgorithm_OtherKey_IsUnknown(string key)
    {
        Assert.False(DigestAlgorithm.TryGetFieldAlgorithm(key, out _));
        Assert.False(DigestAlgorithm.IsDeprecatedKey(key));
    }

    [Fact]
    public void HashLength_EveryAlgorithm_MatchesIncrementalHashOutput()
    {
        foreach (var algorithm in new[] { DigestAlgorithm.Sha256, DigestAlgorithm.Sha512, DigestAlgorithm.Md5 })
        {
            using var hash = IncrementalHash.CreateHash(algorithm.HashAlgorithmName);
            Assert.Equal(algorithm.HashLength, hash.GetHashAndReset().Length);
        }
    }

    [Fact]
    public void FieldAlgorithms_ListsSha256ThenSha512_WithoutMd5()
    {
        Assert.Equal([DigestAlgorithm.Sha256, DigestAlgorithm.Sha512], DigestAlgorithm.FieldAlgorithms);
    }
}
