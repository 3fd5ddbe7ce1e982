using System.Text;
using Freight.Micro.Multipart;
using Freight.Multipart;

namespace Freight.Bench.Tests.Micro;

/// <summary>The micro suite's multipart bodies are what they claim, for both parsers it times (nothing here is timed).</summary>
public sealed class MicroInputsTests
{
    private static readonly MultipartLimits Limits = new() { MaxSections = MultipartBodyInput.MaxSections };

    public static TheoryData<string, int> Bodies => new()
    {
        { "large-parts", 4 },
        { "crlf-flood", 1 },
        { "near-boundary", 1 },
        { "lookalikes", 1 },
        { "dense-lookalikes", 1 },
        { "anchored-lookalikes", 1 },
        { "tiny-parts", 10_000 },
    };

    [Theory]
    [MemberData(nameof(Bodies))]
    public async Task Body_BothParsers_FindItsSectionsAndBytes(string name, int sections)
    {
        var body = Input(name).Build();

        var freight = new SectionRecorder();
        var freightBytes = await MultipartDrain.FreightAsync(new SegmentedBodyReader(body.Bytes), body.Boundary, Limits, freight);
        var aspNetCore = new SectionRecorder();
        var aspNetCoreBytes = await MultipartDrain.AspNetCoreAsync(new MemoryStream(body.Bytes), body.Boundary, new byte[MultipartDrain.BufferBytes], aspNetCore);

        Assert.Equal(MultipartBodyInput.BodyBytes, body.Bytes.Length);
        Assert.Equal(sections, body.Sections.Count);
        body.Verify(freight, "Freight");
        body.Verify(aspNetCore, "ASP.NET Core");
        Assert.Equal(sections, freight.Lengths.Count);
        Assert.Equal(sections, aspNetCore.Lengths.Count);
        Assert.Equal(freightBytes, aspNetCoreBytes);
        // Framing is a small share: the bodies are data, so GB/s is about data.
        Assert.InRange(freightBytes, MultipartBodyInput.BodyBytes * 0.94, MultipartBodyInput.BodyBytes);
    }

    [Fact]
    public void Verify_ASectionMissing_Throws()
    {
        var body = Input("large-parts").Build();
        var parsed = new SectionRecorder();
        foreach (var section in body.Sections.Take(3))
        {
            parsed.StartSection();
            parsed.Append(body.Bytes.AsSpan()[section]);
        }

        Assert.Throws<InvalidDataException>(() => body.Verify(parsed, "test"));
    }

    [Fact]
    public void NearBoundary_DataIsDelimiterPrefixes_NoneComplete()
    {
        var body = Input("near-boundary").Build();
        var data = body.Bytes.AsSpan()[body.Sections[0]];
        var prefix = Encoding.ASCII.GetBytes("\r\n--" + body.Boundary[..^1]);

        Assert.True(data.StartsWith(prefix));
        Assert.Equal(-1, data.IndexOf(Encoding.ASCII.GetBytes("\r\n--" + body.Boundary)));
        Assert.True(Count(data, prefix) >= data.Length / prefix.Length);
    }

    [Fact]
    public void Lookalikes_EveryCopySharesTheDelimitersFirstAndLastByteAndLength()
    {
        var body = Input("lookalikes").Build();
        var data = body.Bytes.AsSpan()[body.Sections[0]];
        var delimiter = Encoding.ASCII.GetBytes("\r\n--" + body.Boundary);

        Assert.Equal(-1, data.IndexOf(delimiter));
        for (var offset = 0; offset + delimiter.Length <= data.Length; offset += delimiter.Length)
        {
            Assert.Equal(delimiter[0], data[offset]);
            Assert.Equal(delimiter[^1], data[offset + delimiter.Length - 1]);
            Assert.NotEqual(delimiter[^2], data[offset + delimiter.Length - 2]);
        }
    }

    [Fact]
    public void DenseLookalikes_EveryOtherByteStartsACandidateOfTheVectorizedSearch()
    {
        var body = Input("dense-lookalikes").Build();
        var data = body.Bytes.AsSpan()[body.Sections[0]];
        var delimiter = Encoding.ASCII.GetBytes("\r\n--" + body.Boundary);

        Assert.Equal(-1, data.IndexOf(delimiter));
        var candidates = 0;
        for (var i = 0; i + delimiter.Length <= data.Length; i++)
        {
            if (data[i] == delimiter[0] && data[i + delimiter.Length - 1] == delimiter[^1])
            {
                candidates++;
            }
        }

        Assert.True(candidates >= (data.Length - delimiter.Length) / 2, $"{candidates} candidates");
    }

    [Fact]
    public void AnchoredLookalikes_EveryNinthBytePassesTheFiveAnchorsOfFreightsSearch()
    {
        var body = Input("anchored-lookalikes").Build();
        var data = body.Bytes.AsSpan()[body.Sections[0]];
        var delimiter = Encoding.ASCII.GetBytes("\r\n--" + body.Boundary);

        Assert.Equal(-1, data.IndexOf(delimiter));
        var candidates = 0;
        for (var i = 0; i + delimiter.Length <= data.Length; i++)
        {
            if (data[i..(i + 4)].SequenceEqual(delimiter.AsSpan(0, 4)) && data[i + delimiter.Length - 1] == delimiter[^1])
            {
                candidates++;
            }
        }

        Assert.True(candidates >= (data.Length - delimiter.Length) / 9, $"{candidates} candidates");
    }

    [Fact]
    public void CrlfFlood_DataIsOnlyCrlf()
    {
        var body = Input("crlf-flood").Build();
        var data = body.Bytes.AsSpan()[body.Sections[0]];

        Assert.Equal(-1, data.IndexOfAnyExcept((byte)'\r', (byte)'\n'));
        Assert.Equal(data.Length / 2, Count(data, "\r\n"u8));
    }

    [Fact]
    public async Task SegmentedBodyReader_ReadsInTransportBlocks_AndResetRewinds()
    {
        var bytes = new byte[(2 * SegmentedBodyReader.BlockBytes) + 10];
        var reader = new SegmentedBodyReader(bytes);

        var first = await reader.ReadAsync();
        Assert.Equal(SegmentedBodyReader.BlockBytes, first.Buffer.Length);
        Assert.False(first.IsCompleted);
        reader.AdvanceTo(first.Buffer.GetPosition(100), first.Buffer.End);
        var second = await reader.ReadAsync();
        Assert.Equal((2 * SegmentedBodyReader.BlockBytes) - 100, second.Buffer.Length);
        reader.AdvanceTo(second.Buffer.End);
        var last = await reader.ReadAsync();
        Assert.Equal(10, last.Buffer.Length);
        Assert.True(last.IsCompleted);

        reader.AdvanceTo(last.Buffer.End);
        Assert.Equal(SegmentedBodyReader.BlockBytes, (await reader.Reset().ReadAsync()).Buffer.Length);
    }

    private static MultipartBodyInput Input(string name) => MultipartBodyInput.All.Single(i => i.Name == name);

    private static int Count(ReadOnlySpan<byte> data, ReadOnlySpan<byte> value)
    {
        var count = 0;
        int index;
        while ((index = data.IndexOf(value)) >= 0)
        {
            count++;
            data = data[(index + value.Length)..];
        }

        return count;
    }
}
