using System.Buffers;
using System.Text;
using Freight.Multipart;

namespace Freight.Tests.Multipart;

public class DelimiterSearchTests
{
    private static readonly byte[] s_delimiter = Encoding.ASCII.GetBytes("\r\n--abc");

    public static TheoryData<string> Buffers =>
    [
        "",
        "hello world",
        "data\r\n--abc",
        "\r\n--abc",
        "\r\n--abcrest",
        "xx\r\n--ab",
        "xx\r\n--a",
        "xx\r\n--",
        "xx\r\n-",
        "xx\r\n",
        "xx\r",
        "\r\r\r\n--abc\r\n",
        "\r\n--ab\r\n--abc",
        "--abc no crlf\n--abc\r--abc",
        "\r\n--abd\r\n--abx\r\n-x\r\n--ab",
        "a\rb\nc\r\nd--e\r\n--",
        "tail\r\n--abx",
    ];

    [Theory]
    [MemberData(nameof(Buffers))]
    public void TryFind_EverySegmentation_MatchesNaiveSearch(string text)
    {
        var bytes = Encoding.ASCII.GetBytes(text);
        var (expectedFound, expectedOffset) = Naive(bytes);

        // One, two and three segments at every pair of cut points, plus an empty segment in the middle.
        for (var i = 0; i <= bytes.Length; i++)
        {
            for (var j = i; j <= bytes.Length; j++)
            {
                Check(HarnessSequence(bytes[..i], bytes[i..j], bytes[j..]));
                Check(HarnessSequence(bytes[..i], [], bytes[i..j], bytes[j..]));
            }

            Check(HarnessSequence(bytes[..i], bytes[i..]));
        }

        Check(HarnessSequence(bytes));

        void Check(ReadOnlySequence<byte> sequence)
        {
            var found = DelimiterSearch.TryFind(sequence, s_delimiter, out var matchStart, out var safeEnd);
            Assert.Equal(expectedFound, found);
            var offset = sequence.Slice(sequence.Start, found ? matchStart : safeEnd).Length;
            Assert.Equal(expectedOffset, offset);
        }
    }

    [Fact]
    public void PartialLength_OnlyTrailingDelimiterPrefixesCount()
    {
        Assert.Equal(6, DelimiterSearch.PartialLength("x\r\n--ab"u8, s_delimiter));
        Assert.Equal(1, DelimiterSearch.PartialLength("x\r"u8, s_delimiter));
        Assert.Equal(0, DelimiterSearch.PartialLength("x\r\n--abx"u8, s_delimiter));
        Assert.Equal(0, DelimiterSearch.PartialLength("\r\n--x"u8, s_delimiter));
        Assert.Equal(0, DelimiterSearch.PartialLength(""u8, s_delimiter));
    }

    private static ReadOnlySequence<byte> HarnessSequence(params byte[][] segments) => MultipartHarness.CreateSequence(segments);

    // Reference: first full match, else the length before the longest suffix that is a proper delimiter prefix.
    private static (bool Found, long Offset) Naive(byte[] bytes)
    {
        var index = bytes.AsSpan().IndexOf(s_delimiter);
        if (index >= 0)
        {
            return (true, index);
        }

        for (var start = Math.Max(0, bytes.Length - s_delimiter.Length + 1); start < bytes.Length; start++)
        {
            if (s_delimiter.AsSpan().StartsWith(bytes.AsSpan(start)))
            {
                return (false, start);
            }
        }

        return (false, bytes.Length);
    }
}
