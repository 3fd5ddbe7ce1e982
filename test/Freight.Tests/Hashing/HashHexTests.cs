using Freight.Hashing;

namespace Freight.Tests.Hashing;

public sealed class HashHexTests
{
    [Fact]
    public void ToHex_HighHalfFirst_LowercasePadded()
    {
        Assert.Equal("0123456789abcdeffedcba9876543210", HashHex.ToHex(new UInt128(0x0123456789ABCDEF, 0xFEDCBA9876543210)));
        Assert.Equal("00000000000000000000000000000001", HashHex.ToHex(UInt128.One));
        Assert.Equal("ffffffffffffffffffffffffffffffff", HashHex.ToHex(UInt128.MaxValue));
    }
}
