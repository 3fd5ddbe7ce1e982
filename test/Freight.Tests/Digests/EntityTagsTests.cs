using System.IO.Hashing;
using Freight.Digests;
using Freight.Hashing;
using Microsoft.Net.Http.Headers;

namespace Freight.Tests.Digests;

public sealed class EntityTagsTests
{
    [Fact]
    public void FromContentHash_EmptyContent_IsQuotedXxhsumOutput()
    {
        // xxhsum -H2 of an empty file.
        Assert.Equal("\"99aa06d3014798d86001c324468d497f\"", EntityTags.FromContentHash(XxHash128.HashToUInt128([])));
    }

    [Fact]
    public void FromContentHash_EdgeValues_WritesAll32DigitsHighHalfFirst()
    {
        Assert.Equal("\"00000000000000000000000000000000\"", EntityTags.FromContentHash(UInt128.Zero));
        Assert.Equal("\"ffffffffffffffffffffffffffffffff\"", EntityTags.FromContentHash(UInt128.MaxValue));
        Assert.Equal("\"0123456789abcdeffedcba9876543210\"", EntityTags.FromContentHash(new UInt128(0x0123456789abcdef, 0xfedcba9876543210)));
    }

    [Fact]
    public void FromContentHash_Always_IsAStrongEntityTag()
    {
        var tag = EntityTags.FromContentHash(XxHash128.HashToUInt128(Rfc9530Examples.HelloWorld));

        var parsed = EntityTagHeaderValue.Parse(tag);

        Assert.False(parsed.IsWeak);
        Assert.Equal(tag, parsed.Tag.ToString());
        Assert.Equal($"\"{HashHex.ToHex(XxHash128.HashToUInt128(Rfc9530Examples.HelloWorld))}\"", tag);
    }
}
