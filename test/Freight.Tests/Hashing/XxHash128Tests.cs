using System.IO.Hashing;
using System.Text;
using Freight.Hashing;

namespace Freight.Tests.Hashing;

// Expected values were produced with `xxhsum -H2` (xxHash 0.8.1) on files written by:
//   python3 -c "import sys; n=LEN; sys.stdout.buffer.write(bytes((i*31+7)&255 for i in range(n)))" > in.bin
// They held for Freight's former in-house port and hold for System.IO.Hashing.XxHash128 (seed 0, the default),
// formatted by HashHex: ETags and the bench's expected hashes depend on both the value and the digit order.
public sealed class XxHash128Tests
{
    public static TheoryData<int, string> ReferenceVectors => new()
    {
        { 0, "99aa06d3014798d86001c324468d497f" },
        { 1, "495b62073ef70ca44c5cca45d0f4811f" },
        { 2, "12b2847aa0de5aaaa7e250c97710ff27" },
        { 3, "46f66cb93538156515f7093b173d005c" },
        { 4, "7fefeeffb4d0eab3b987ca5d9241572a" },
        { 5, "2fbb16712b4bf1d5752a86982353f4f3" },
        { 7, "9194efbddb0d752c90d8d40e8b5ca9c4" },
        { 8, "803c675a846cc6c256bb836ceb6d4baa" },
        { 9, "d46556872d230f224376673580310154" },
        { 12, "48480c880e4976fd2f65dbab90c80af2" },
        { 16, "650fe308c566747df853dd94614dfa07" },
        { 17, "18217300b5132d5a78c349fe81b2f26c" },
        { 31, "a7591e70669b73f845e862e1ac921624" },
        { 32, "3220ff5fe507b3c05726e079716c6a62" },
        { 33, "91a4c56ad1b91d883b25275300c8b44e" },
        { 63, "44e1980eb144e6c887e6bb29553b8e31" },
        { 64, "f9bfa77da0891a9636c5f7e547426bc4" },
        { 65, "5642c5d38e6e787dd0d1d7884590a330" },
        { 96, "59861d1adb3e51a263451be079edd707" },
        { 127, "3117b681087b4ef48a02b1f75c556ac3" },
        { 128, "b4f87b99d2db8a511e04fad9f0cacb4d" },
        { 129, "6881633650cd8924c51bc887976aef63" },
        { 160, "c000b788df6dbbc4f661814e66697391" },
        { 192, "d4479caa4bea0dced8d6fbd475016236" },
        { 200, "8d8629a1aef9ef9060ea018811f9a437" },
        { 239, "75acb2ecd970b3996df5c761356a5057" },
        { 240, "de57aab31e77a2ff93e173833f75ab66" },
        { 241, "92b991a7192f3f080b3b630948ce4a00" },
        { 255, "3e68b7e415ce7e5c89932170686cdd9a" },
        { 256, "24ee30633ca52c6aec85b75bafe6ca74" },
        { 257, "0f849a4f3e33b6c212ef0ff633841459" },
        { 511, "f7b19289ed7568430fec8fb6eae1df8b" },
        { 512, "2080c7d36a7ea4bbefc2e52d1c2ffbaa" },
        { 1023, "8e8ed756aa1f01faf0d330ce2b3300fb" },
        { 1024, "4c17271c906df79223bc880ebf0d29c6" },
        { 1025, "70a4eb1b9691d77fc09fdfbc398c7d82" },
        { 2047, "7d344df231e0f912c49f1b36d955611e" },
        { 2048, "b318976b177a38c719f6f9c987331373" },
        { 2049, "11999f258baadb535045460f5d85c275" },
        { 4096, "49d3842b33d51e8aa3c19f8174cde0bb" },
        { 10000, "d53e809be21e616d441f01d9711bebed" },
        { 65537, "a7262c585d065f55d6b549a3fd1d4112" },
        { 300000, "c740d6a845310125e60b7efae23d661d" },
        { 1048583, "80dbfe05a83d5592e5306223e2cb11e2" },
    };

    [Theory]
    [MemberData(nameof(ReferenceVectors))]
    public void Hash_OneShot_MatchesReference(int length, string expected)
    {
        Assert.Equal(expected, HashHex.ToHex(XxHash128.HashToUInt128(Pattern(length))));
    }

    [Theory]
    [MemberData(nameof(ReferenceVectors))]
    public void Hash_SingleAppend_MatchesReference(int length, string expected)
    {
        var hasher = new XxHash128();
        hasher.Append(Pattern(length));

        Assert.Equal(expected, HashHex.ToHex(hasher.GetCurrentHashAsUInt128()));
    }

    [Fact]
    public void Hash_EmptyInput_MatchesReference()
    {
        Assert.Equal("99aa06d3014798d86001c324468d497f", HashHex.ToHex(XxHash128.HashToUInt128([])));
        Assert.Equal("99aa06d3014798d86001c324468d497f", HashHex.ToHex(new XxHash128().GetCurrentHashAsUInt128()));
    }

    [Theory]
    [InlineData("abc", "06b05ab6733a618578af5f94892f3950")]
    [InlineData("The quick brown fox jumps over the lazy dog", "ddd650205ca3e7fa24a1cc2e3a8a7651")]
    public void Hash_AsciiText_MatchesReference(string text, string expected)
    {
        Assert.Equal(expected, HashHex.ToHex(XxHash128.HashToUInt128(Encoding.ASCII.GetBytes(text))));
    }

    [Fact]
    public void Hash_QuadraticPattern_MatchesReference()
    {
        // python3 -c "import sys; sys.stdout.buffer.write(bytes((i*i*13+i*7+1)&255 for i in range(5000)))"
        byte[] data = new byte[5000];
        for (int i = 0; i < data.Length; i++)
        {
            data[i] = (byte)((i * i * 13) + (i * 7) + 1);
        }

        Assert.Equal("f47e0934a4a6353262f3c875a6362c7c", HashHex.ToHex(XxHash128.HashToUInt128(data)));
    }

    [Theory]
    [InlineData(1)]
    [InlineData(7)]
    [InlineData(63)]
    [InlineData(64)]
    [InlineData(65)]
    [InlineData(255)]
    [InlineData(256)]
    [InlineData(257)]
    [InlineData(1000)]
    [InlineData(1024)]
    [InlineData(4096)]
    [InlineData(65536)]
    public void Hash_StreamingChunks_MatchesOneShot(int chunkSize)
    {
        byte[] data = Pattern(300_000);
        var hasher = new XxHash128();
        for (int offset = 0; offset < data.Length; offset += chunkSize)
        {
            hasher.Append(data.AsSpan(offset, Math.Min(chunkSize, data.Length - offset)));
        }

        Assert.Equal(XxHash128.HashToUInt128(data), hasher.GetCurrentHashAsUInt128());
        Assert.Equal("c740d6a845310125e60b7efae23d661d", HashHex.ToHex(hasher.GetCurrentHashAsUInt128()));
    }

    [Fact]
    public void Hash_RandomChunks_MatchesOneShot()
    {
        byte[] data = Pattern(1_048_583);
        var random = new Random(12345);
        var hasher = new XxHash128();
        int offset = 0;
        while (offset < data.Length)
        {
            // Mix tiny, stripe-sized and multi-block chunks.
            int size = random.Next(4) switch
            {
                0 => random.Next(0, 8),
                1 => random.Next(0, 300),
                2 => random.Next(0, 3000),
                _ => random.Next(0, 70_000),
            };
            size = Math.Min(size, data.Length - offset);
            hasher.Append(data.AsSpan(offset, size));
            offset += size;
        }

        Assert.Equal("80dbfe05a83d5592e5306223e2cb11e2", HashHex.ToHex(hasher.GetCurrentHashAsUInt128()));
    }

    [Fact]
    public void Hash_EveryTwoWaySplit_MatchesOneShot()
    {
        // Covers every buffer fill level on either side of the 240/256-byte and 1024-byte block boundaries.
        byte[] data = Pattern(2200);
        UInt128 expected = XxHash128.HashToUInt128(data);
        var hasher = new XxHash128();
        for (int split = 0; split <= data.Length; split++)
        {
            hasher.Reset();
            hasher.Append(data.AsSpan(0, split));
            hasher.Append(data.AsSpan(split));
            Assert.True(expected == hasher.GetCurrentHashAsUInt128(), $"split at {split}");
        }
    }

    [Fact]
    public void Hash_EveryPrefix_MatchesOneShotWhileStreaming()
    {
        // Reading the hash mid-stream must not disturb the state, and each prefix must match its one-shot hash.
        byte[] data = Pattern(2200);
        var hasher = new XxHash128();
        for (int length = 0; length <= data.Length; length++)
        {
            Assert.True(XxHash128.HashToUInt128(data.AsSpan(0, length)) == hasher.GetCurrentHashAsUInt128(), $"prefix {length}");
            if (length < data.Length)
            {
                hasher.Append(data.AsSpan(length, 1));
            }
        }
    }

    [Fact]
    public void GetCurrentHash_CalledTwice_DoesNotChangeState()
    {
        byte[] data = Pattern(10_000);
        var hasher = new XxHash128();
        hasher.Append(data.AsSpan(0, 5000));
        UInt128 first = hasher.GetCurrentHashAsUInt128();
        UInt128 second = hasher.GetCurrentHashAsUInt128();
        hasher.Append(data.AsSpan(5000));

        Assert.Equal(first, second);
        Assert.Equal(XxHash128.HashToUInt128(data.AsSpan(0, 5000)), first);
        Assert.Equal("d53e809be21e616d441f01d9711bebed", HashHex.ToHex(hasher.GetCurrentHashAsUInt128()));
    }

    [Fact]
    public void Reset_AfterData_StartsOver()
    {
        var hasher = new XxHash128();
        hasher.Append(Pattern(4096));
        hasher.Reset();

        Assert.Equal("99aa06d3014798d86001c324468d497f", HashHex.ToHex(hasher.GetCurrentHashAsUInt128()));

        hasher.Append(Pattern(1025));
        Assert.Equal("70a4eb1b9691d77fc09fdfbc398c7d82", HashHex.ToHex(hasher.GetCurrentHashAsUInt128()));
    }

    [Theory]
    [InlineData(0, "99aa06d3014798d86001c324468d497f")]
    [InlineData(1025, "70a4eb1b9691d77fc09fdfbc398c7d82")]
    [InlineData(1048583, "80dbfe05a83d5592e5306223e2cb11e2")]
    public void GetCurrentHash_Bytes_AreTheHexDigitsInOrder(int length, string expected)
    {
        // The package's canonical bytes (big-endian, high half first) read as hex are exactly HashHex's text.
        var hasher = new XxHash128();
        hasher.Append(Pattern(length));
        Span<byte> bytes = stackalloc byte[16];

        Assert.Equal(16, hasher.GetCurrentHash(bytes));
        Assert.Equal(expected, Convert.ToHexStringLower(bytes));
        Assert.Equal(expected, Convert.ToHexStringLower(XxHash128.Hash(Pattern(length))));
    }

    [Fact]
    public void GetHashAndReset_AfterData_GivesTheHashAndStartsOver()
    {
        var hasher = new XxHash128();
        hasher.Append(Pattern(1025));

        Assert.Equal("70a4eb1b9691d77fc09fdfbc398c7d82", Convert.ToHexStringLower(hasher.GetHashAndReset()));
        Assert.Equal("99aa06d3014798d86001c324468d497f", HashHex.ToHex(hasher.GetCurrentHashAsUInt128()));
    }

    [Fact]
    public void HashToUInt128_OfText_SplitsIntoHighAndLowHalves()
    {
        UInt128 hash = XxHash128.HashToUInt128(Encoding.ASCII.GetBytes("abc"));

        Assert.Equal(0x06b05ab6733a6185UL, (ulong)(hash >> 64));
        Assert.Equal(0x78af5f94892f3950UL, (ulong)hash);
    }

    private static byte[] Pattern(int length)
    {
        byte[] data = new byte[length];
        for (int i = 0; i < length; i++)
        {
            data[i] = (byte)((i * 31) + 7);
        }

        return data;
    }
}
