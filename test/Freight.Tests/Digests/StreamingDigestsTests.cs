using System.Buffers;
using System.IO.Hashing;
using System.Security.Cryptography;
using Freight.Digests;
using Freight.Hashing;

namespace Freight.Tests.Digests;

public sealed class StreamingDigestsTests
{
    private static readonly DigestAlgorithm[] All = [DigestAlgorithm.Sha256, DigestAlgorithm.Sha512, DigestAlgorithm.Md5];

    private static byte[] Payload(int length)
    {
        var bytes = new byte[length];
        new Random(length).NextBytes(bytes);
        return bytes;
    }

    private static ComputedDigests Compute(byte[] body, params DigestAlgorithm[] algorithms)
    {
        using var digests = new StreamingDigests(algorithms);
        digests.Append(body);
        return digests.Complete();
    }

    [Fact]
    public void Complete_Rfc9530ExampleContent_GivesThePublishedDigests()
    {
        var computed = Compute(Rfc9530Examples.HelloWorld, DigestAlgorithm.Sha256, DigestAlgorithm.Sha512);

        Assert.Equal(Rfc9530Examples.Sha256, Convert.ToBase64String(computed.GetDigest(DigestAlgorithm.Sha256)));
        Assert.Equal(Rfc9530Examples.Sha512, Convert.ToBase64String(computed.GetDigest(DigestAlgorithm.Sha512)));
        Assert.Equal(Rfc9530Examples.BothDigests, DigestFields.Format(
            [(DigestAlgorithm.Sha256, computed.GetDigest(DigestAlgorithm.Sha256)), (DigestAlgorithm.Sha512, computed.GetDigest(DigestAlgorithm.Sha512))]));
    }

    [Fact]
    public void Complete_EmptyBody_GivesTheDigestsOfNothing()
    {
        // openssl dgst of an empty file; xxhsum -H2 of an empty file.
        var computed = Compute([], All);

        Assert.Equal(0, computed.Length);
        Assert.Equal("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", Convert.ToBase64String(computed.GetDigest(DigestAlgorithm.Sha256)));
        Assert.Equal("z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==", Convert.ToBase64String(computed.GetDigest(DigestAlgorithm.Sha512)));
        Assert.Equal("1B2M2Y8AsgTpgAmY7PhCfg==", Convert.ToBase64String(computed.GetDigest(DigestAlgorithm.Md5)));
        Assert.Equal("99aa06d3014798d86001c324468d497f", HashHex.ToHex(computed.ContentHash));
    }

    [Theory]
    [InlineData(1_000, new[] { 1 })]
    [InlineData(100_003, new[] { 7 })]
    [InlineData(100_003, new[] { 0, 64, 0, 4096, 13 })]
    [InlineData(1_048_583, new[] { 65_536 })]
    [InlineData(1_048_583, new[] { 3, 240, 241, 100_000, 255, 65_537 })]
    public void Append_MultiSegmentSequence_EqualsOneShotHashes(int length, int[] segmentSizes)
    {
        var body = Payload(length);
        var sequence = ChunkedSequence.Create(body, segmentSizes);
        Assert.False(sequence.IsSingleSegment);

        using var digests = new StreamingDigests(All);
        digests.Append(sequence);
        var computed = digests.Complete();

        Assert.Equal(length, computed.Length);
        Assert.Equal(SHA256.HashData(body), computed.GetDigest(DigestAlgorithm.Sha256));
        Assert.Equal(SHA512.HashData(body), computed.GetDigest(DigestAlgorithm.Sha512));
        Assert.Equal(Compute(body, DigestAlgorithm.Md5).GetDigest(DigestAlgorithm.Md5), computed.GetDigest(DigestAlgorithm.Md5));
        Assert.Equal(XxHash128.HashToUInt128(body), computed.ContentHash);
    }

    [Fact]
    public void Append_SpansAndSequencesMixed_EqualsOneShotHashes()
    {
        var body = Payload(300_000);
        using var digests = new StreamingDigests(All);

        digests.Append(body.AsSpan(0, 5));
        digests.Append(ChunkedSequence.Create(body[5..200_000], 1_000, 33_333));
        digests.Append(new ReadOnlySequence<byte>(body, 200_000, 50_000));
        digests.Append(body.AsSpan(250_000));
        var computed = digests.Complete();

        Assert.Equal(body.Length, digests.Length);
        Assert.Equal(SHA256.HashData(body), computed.GetDigest(DigestAlgorithm.Sha256));
        Assert.Equal(SHA512.HashData(body), computed.GetDigest(DigestAlgorithm.Sha512));
        Assert.Equal(XxHash128.HashToUInt128(body), computed.ContentHash);
    }

    [Fact]
    public void Append_MultiSegmentSequence_AllocatesNothing()
    {
        var sequence = ChunkedSequence.Create(Payload(64 * 1024), 4096);
        using var digests = new StreamingDigests(All);
        digests.Append(sequence);

        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 0; i < 16; i++)
        {
            digests.Append(sequence);
        }

        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
    }

    [Fact]
    public void Complete_NoAlgorithms_ComputesOnlyTheContentHash()
    {
        var body = Payload(5_000);
        using var digests = new StreamingDigests();
        digests.Append(body);
        var computed = digests.Complete();

        Assert.Empty(computed.Algorithms);
        Assert.False(computed.TryGetDigest(DigestAlgorithm.Sha256, out _));
        Assert.Throws<InvalidOperationException>(() => computed.GetDigest(DigestAlgorithm.Sha256));
        Assert.Equal(XxHash128.HashToUInt128(body), computed.ContentHash);
        Assert.Equal(EntityTags.FromContentHash(computed.ContentHash), computed.EntityTag);
    }

    [Fact]
    public void Constructor_RepeatedAlgorithms_ComputesEachOnce()
    {
        using var digests = new StreamingDigests([DigestAlgorithm.Sha512, DigestAlgorithm.Sha256, DigestAlgorithm.Sha512]);

        Assert.Equal([DigestAlgorithm.Sha512, DigestAlgorithm.Sha256], digests.Algorithms);
        digests.Append(Rfc9530Examples.HelloWorld);
        Assert.Equal(Rfc9530Examples.Sha512, Convert.ToBase64String(digests.Complete().GetDigest(DigestAlgorithm.Sha512)));
    }

    [Fact]
    public void Complete_CalledTwice_ReturnsTheSameResults()
    {
        using var digests = new StreamingDigests([DigestAlgorithm.Sha256]);
        digests.Append(Rfc9530Examples.HelloWorld);

        var first = digests.Complete();

        Assert.Same(first, digests.Complete());
        Assert.Equal(Rfc9530Examples.Sha256, Convert.ToBase64String(first.GetDigest(DigestAlgorithm.Sha256)));
    }

    [Fact]
    public void Append_AfterComplete_Throws()
    {
        using var digests = new StreamingDigests([DigestAlgorithm.Sha256]);
        digests.Complete();

        Assert.Throws<InvalidOperationException>(() => digests.Append([1]));
        Assert.Throws<InvalidOperationException>(() => digests.Append(new ReadOnlySequence<byte>([1])));
    }

    [Fact]
    public void Append_AfterDispose_ThrowsObjectDisposed()
    {
        var digests = new StreamingDigests([DigestAlgorithm.Sha256]);
        digests.Dispose();
        digests.Dispose();

        Assert.Throws<ObjectDisposedException>(() => digests.Append([1]));
        Assert.Throws<ObjectDisposedException>(() => digests.Complete());
    }

    [Fact]
    public void Verify_RequestDigestsMatchBody_ReportsNoMismatch()
    {
        Assert.True(DigestFields.TryParse(Rfc9530Examples.BothDigests, out var sent));
        var computed = Compute(Rfc9530Examples.HelloWorld, [.. DigestFields.VerifiableAlgorithms(sent)]);

        Assert.Empty(computed.Verify(sent));
    }

    [Fact]
    public void Verify_OneDigestDiffers_ReportsAlgorithmSentAndComputed()
    {
        var wrong = SHA512.HashData("{\"hello\": \"world!\"}"u8);
        Assert.True(DigestFields.TryParse($"sha-256=:{Rfc9530Examples.Sha256}:, sha-512=:{Convert.ToBase64String(wrong)}:", out var sent));
        var computed = Compute(Rfc9530Examples.HelloWorld, DigestAlgorithm.Sha256, DigestAlgorithm.Sha512);

        var mismatch = Assert.Single(computed.Verify(sent));

        Assert.Same(DigestAlgorithm.Sha512, mismatch.Algorithm);
        Assert.Equal(wrong, mismatch.Expected.ToArray());
        Assert.Equal(Rfc9530Examples.Sha512, Convert.ToBase64String(mismatch.Actual.Span));
        Assert.Equal($"sha-512: sent :{Convert.ToBase64String(wrong)}:, computed :{Rfc9530Examples.Sha512}:", mismatch.ToString());
    }

    [Fact]
    public void Verify_BothDigestsDiffer_ReportsBothInAlgorithmOrder()
    {
        Assert.True(DigestFields.TryParse(Rfc9530Examples.BothDigests, out var sent));
        var computed = Compute("{\"hello\": \"World\"}"u8.ToArray(), DigestAlgorithm.Sha512, DigestAlgorithm.Sha256);

        var mismatches = computed.Verify(sent);

        Assert.Equal([DigestAlgorithm.Sha256, DigestAlgorithm.Sha512], mismatches.Select(m => m.Algorithm));
    }

    [Fact]
    public void Verify_UnknownAndDeprecatedKeys_AreNotChecked()
    {
        Assert.True(DigestFields.TryParse($"unixsum=:AQID:, md5=:AAAA:, sha-256=:{Rfc9530Examples.Sha256}:", out var sent));
        var computed = Compute(Rfc9530Examples.HelloWorld, DigestAlgorithm.Sha256, DigestAlgorithm.Md5);

        Assert.Empty(computed.Verify(sent));
    }

    [Fact]
    public void Verify_SentAlgorithmNotComputed_Throws()
    {
        Assert.True(DigestFields.TryParse(Rfc9530Examples.BothDigests, out var sent));
        var computed = Compute(Rfc9530Examples.HelloWorld, DigestAlgorithm.Sha256);

        Assert.Throws<InvalidOperationException>(() => computed.Verify(sent));
    }

    [Fact]
    public void Verify_ContentMd5_ReportsMismatchOnlyWhenDifferent()
    {
        var computed = Compute(Rfc9530Examples.HelloWorld, DigestAlgorithm.Md5);
        var right = Convert.FromHexString("49dfdd54b01cbcd2d2ab5e9e5ee6b9b9"); // openssl dgst -md5
        var wrong = Convert.FromHexString("9f0aaae9beae6bfb530e4ec1e4cd7ce3");

        Assert.Null(computed.Verify(DigestAlgorithm.Md5, right));
        var mismatch = computed.Verify(DigestAlgorithm.Md5, wrong);
        Assert.NotNull(mismatch);
        Assert.Equal(right, mismatch.Actual.ToArray());
    }
}
