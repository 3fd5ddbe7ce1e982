using Freight.Lab.Payload;

namespace Freight.Tests.Payload;

public sealed class DeterministicPayloadTests : IDisposable
{
    private readonly TempDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    // Offsets 0..17 cover every position inside the first two 8-byte words and the start of the third;
    // the others sit around word and 1 MiB boundaries (WriteFile fills in 1 MiB chunks).
    public static TheoryData<long> Offsets()
    {
        var data = new TheoryData<long>();
        for (long offset = 0; offset <= 17; offset++)
        {
            data.Add(offset);
        }

        foreach (long offset in new long[] { 23, 24, 25, 4095, 4096, 4097, 1024 * 1024 - 1, 1024 * 1024, 1024 * 1024 + 3 })
        {
            data.Add(offset);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Offsets))]
    public void Fill_AnyOffsetAndLength_EqualsSliceOfCreate(long offset)
    {
        var reference = DeterministicPayload.Create(offset + 40);
        foreach (var length in new[] { 0, 1, 2, 7, 8, 9, 15, 16, 17, 40 })
        {
            var destination = new byte[length];
            DeterministicPayload.Fill(destination, offset);
            Assert.Equal(reference.AsSpan((int)offset, length).ToArray(), destination);
        }
    }

    [Fact]
    public void Fill_DestinationLargerThanNeeded_WritesOnlyItsSpan()
    {
        // Fill writes whole words where it can; it must not write past the span it was given.
        var buffer = new byte[64];
        Array.Fill(buffer, (byte)0xEE);

        DeterministicPayload.Fill(buffer.AsSpan(3, 13), 5);

        Assert.Equal(DeterministicPayload.Create(18).AsSpan(5, 13).ToArray(), buffer.AsSpan(3, 13).ToArray());
        Assert.All(buffer.AsSpan(0, 3).ToArray(), b => Assert.Equal(0xEE, b));
        Assert.All(buffer.AsSpan(16).ToArray(), b => Assert.Equal(0xEE, b));
    }

    [Theory]
    [InlineData(4L * 1024 * 1024 * 1024)]
    [InlineData(4L * 1024 * 1024 * 1024 + 3)]
    [InlineData(1L << 40)]
    [InlineData((1L << 40) + 13)]
    public void Fill_LargeOffset_AgreesWithFillFromEarlierOffset(long offset)
    {
        // Ranges past 2 GiB cannot come from Create; they must still be one continuous stream.
        var earlier = new byte[64 + 11];
        DeterministicPayload.Fill(earlier, offset - 11);
        var direct = new byte[64];
        DeterministicPayload.Fill(direct, offset);

        Assert.Equal(earlier.AsSpan(11).ToArray(), direct);
    }

    [Fact]
    public void Fill_OffsetOneTebibytePlusFive_MatchesReferenceImplementation()
    {
        // Computed with an independent SplitMix64 in Python (seed 2017, word i = mix(seed + (i + 1) * golden)).
        var bytes = new byte[16];
        DeterministicPayload.Fill(bytes, (1L << 40) + 5);

        Assert.Equal("eaf2b47853da010a749dd0ccc37b4b8e", Convert.ToHexStringLower(bytes));
    }

    [Fact]
    public void Fill_NegativeOffset_Throws()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => DeterministicPayload.Fill(new byte[8], -1));
    }

    [Fact]
    public void Create_DefaultSeed_FirstSixteenBytesArePinned()
    {
        // Golden value: the bench and the server verify each other's bytes, across versions. If this fails,
        // the generator changed and every older bench or server disagrees with this one.
        var bytes = DeterministicPayload.Create(16);

        Assert.Equal("0fb2eabff23284c510e35b1fa2ab2690", Convert.ToHexStringLower(bytes));
        Assert.Equal(bytes, DeterministicPayload.Create(16, DeterministicPayload.DefaultSeed));
        Assert.Equal(2017UL, DeterministicPayload.DefaultSeed);
    }

    [Fact]
    public void Create_SeedZero_MatchesPublishedSplitMix64Output()
    {
        // SplitMix64 from state 0: first output 0xE220A8397B1DCDAF (Vigna's reference), then 0x6E789E6AA1B965F4.
        var bytes = DeterministicPayload.Create(16, seed: 0);

        Assert.Equal("afcd1d7b39a820e2f465b9a16a9e786e", Convert.ToHexStringLower(bytes));
    }

    [Fact]
    public void Create_SameSeed_ReturnsSameBytes()
    {
        Assert.Equal(DeterministicPayload.Create(4099, seed: 42), DeterministicPayload.Create(4099, seed: 42));
    }

    [Fact]
    public void Create_OtherSeed_ReturnsDifferentBytes()
    {
        var a = DeterministicPayload.Create(4099, seed: 42);
        var b = DeterministicPayload.Create(4099, seed: 43);

        Assert.NotEqual(a, b);

        // Not merely different somewhere: a different seed must not reproduce any whole word of the other.
        for (var i = 0; i + 8 <= a.Length; i += 8)
        {
            Assert.NotEqual(a.AsSpan(i, 8).ToArray(), b.AsSpan(i, 8).ToArray());
        }
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(7)]
    [InlineData(8)]
    [InlineData(9)]
    [InlineData(1024 * 1024 + 3)]
    public void Create_AnyLength_IsPrefixOfLongerPayload(int length)
    {
        var bytes = DeterministicPayload.Create(length);
        var longer = DeterministicPayload.Create(length + 16);

        Assert.Equal(length, bytes.Length);
        Assert.Equal(longer.AsSpan(0, length).ToArray(), bytes);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(7)]
    [InlineData(8)]
    [InlineData(9)]
    [InlineData(1024 * 1024 + 3)]
    [InlineData(2 * 1024 * 1024 + 5)]
    public void WriteFile_AnyLength_WritesExactlyCreateBytes(int length)
    {
        var path = _dir.Combine("payload.bin");

        DeterministicPayload.WriteFile(path, length);

        Assert.Equal(DeterministicPayload.Create(length), File.ReadAllBytes(path));
        Assert.Equal(["payload.bin"], _dir.RelativeFiles());
    }

    [Fact]
    public void WriteFile_OtherSeed_WritesThatSeedsBytes()
    {
        var path = _dir.Combine("seeded.bin");

        DeterministicPayload.WriteFile(path, 1000, seed: 7);

        Assert.Equal(DeterministicPayload.Create(1000, seed: 7), File.ReadAllBytes(path));
    }

    [Fact]
    public void WriteFile_ExistingLongerFile_ReplacedWholeWithNoTail()
    {
        var path = _dir.Combine("payload.bin");
        File.WriteAllBytes(path, new byte[10_000]);

        DeterministicPayload.WriteFile(path, 9);

        Assert.Equal(DeterministicPayload.Create(9), File.ReadAllBytes(path));
        Assert.Equal(["payload.bin"], _dir.RelativeFiles());
    }

    [Fact]
    public void WriteFile_ExistingFileOpenByReader_ReaderKeepsOldBytes()
    {
        // Atomic replacement (rename over the old name) leaves a reader of the old file with the old bytes;
        // writing in place would change them under it.
        var path = _dir.Combine("payload.bin");
        var old = DeterministicPayload.Create(5000, seed: 99);
        File.WriteAllBytes(path, old);

        using var reader = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        DeterministicPayload.WriteFile(path, 5000);

        var seen = new byte[old.Length];
        reader.ReadExactly(seen);
        Assert.Equal(old, seen);
        Assert.Equal(DeterministicPayload.Create(5000), File.ReadAllBytes(path));
    }

    [Fact]
    public void WriteFile_Success_LeavesNoTempFile()
    {
        var path = _dir.Combine("payload.bin");

        DeterministicPayload.WriteFile(path, 1024 * 1024 + 3);
        DeterministicPayload.WriteFile(path, 17);

        Assert.Empty(Directory.GetFiles(_dir.Path, ".*.tmp", SearchOption.AllDirectories));
        Assert.Equal(["payload.bin"], _dir.RelativeFiles());
    }

    [Fact]
    public void WriteFile_MissingDirectory_CreatesIt()
    {
        var path = _dir.Combine("a", "b", "payload.bin");

        DeterministicPayload.WriteFile(path, 33);

        Assert.Equal(DeterministicPayload.Create(33), File.ReadAllBytes(path));
        Assert.Equal(["a/b/payload.bin"], _dir.RelativeFiles());
    }

    [Fact]
    public void WriteFile_TargetIsDirectory_ThrowsAndLeavesNoTempFile()
    {
        // The rename fails; the finally block must still remove the temp file it wrote.
        var path = _dir.Combine("taken");
        Directory.CreateDirectory(path);

        Assert.ThrowsAny<IOException>(() => DeterministicPayload.WriteFile(path, 100));

        Assert.Empty(_dir.RelativeFiles());
    }
}
