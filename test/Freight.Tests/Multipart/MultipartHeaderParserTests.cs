using System.Buffers;
using System.Text;
using Freight.Multipart;

namespace Freight.Tests.Multipart;

public class MultipartHeaderParserTests
{
    [Fact]
    public void CreateSection_RandomContentDispositionValues_ThrowOnlyMultipartFormatException()
    {
        var random = new Random(6266);
        string[] pieces =
        [
            "form-data", "attachment", ";", " ", "name", "filename", "filename*", "=", "\"", "\\", "'", "''", "%", "%E2%82",
            "%ZZ", "UTF-8", "utf-8", "iso-8859-1", "bogus-charset", "=?", "?=", "?B?", "?Q?", "=?utf-8?B?", "=?utf-8?Q?",
            "AAAA", "====", "_", "\u00e9", "\u20ac", "a", "*", ",", "\t",
        ];

        for (var i = 0; i < 20000; i++)
        {
            var value = new StringBuilder();
            var count = random.Next(1, 14);
            for (var j = 0; j < count; j++)
            {
                value.Append(pieces[random.Next(pieces.Length)]);
            }

            var headers = new List<KeyValuePair<string, string>> { new("Content-Disposition", value.ToString()) };
            try
            {
                var section = MultipartHeaderParser.CreateSection(headers);
                Assert.Equal(value.ToString(), section.ContentDisposition);
            }
            catch (MultipartFormatException)
            {
            }
            catch (Exception ex)
            {
                Assert.Fail($"{ex.GetType().Name} for Content-Disposition: {value}");
            }
        }
    }

    [Theory]
    [InlineData("form-data; filename*")]
    [InlineData("filename*%E2%82; filename*;")]
    [InlineData("form-data; name; filename")]
    public void CreateSection_ParameterWithoutValue_ThrowsMultipartFormatExceptionOrParses(string disposition)
    {
        // ContentDispositionHeaderValue's getters throw ArgumentNullException for a bare filename*; we must not leak it.
        try
        {
            MultipartHeaderParser.CreateSection([new("Content-Disposition", disposition)]);
        }
        catch (MultipartFormatException)
        {
        }
    }

    [Theory]
    [InlineData("form-data; name=\"a\"; filename*=UTF-7''%C3txt")]
    [InlineData("form-data; name=\"a\"; filename*=utf-7''a+AGE-")]
    public void CreateSection_ExtValueInUtf7_ThrowsMultipartFormatException(string disposition)
    {
        // The fuzzer's find: .NET refuses UTF-7 with NotSupportedException, which escaped as a 500.
        Assert.Throws<MultipartFormatException>(() => MultipartHeaderParser.CreateSection([new("Content-Disposition", disposition)]));
    }

    [Theory]
    [InlineData("form-data; name=\"a\"; filename*=bogus''x", "a", null)]
    [InlineData("form-data; name=\"a\"; filename*=bogus''x; filename=\"f.txt\"", "a", "f.txt")]
    [InlineData("form-data; name=\"a\"; filename=\"=?utf-8?B?w6l0w6kudHh0?=\"", "a", "\u00e9t\u00e9.txt")]
    [InlineData("form-data; name=a", "a", null)]
    [InlineData("form-data", null, null)]
    public void CreateSection_FileNameVariants(string disposition, string? name, string? fileName)
    {
        var section = MultipartHeaderParser.CreateSection([new("Content-Disposition", disposition)]);
        Assert.Equal(name, section.Name);
        Assert.Equal(fileName, section.FileName);
        Assert.Equal("form-data", section.DispositionType);
    }

    [Fact]
    public void TryParse_HeaderLineSplitAcrossSegments_IsParsed()
    {
        var text = Encoding.UTF8.GetBytes("Content-Disposition: form-data; name=\"caf\u00e9\"\r\nX-A:b\r\n\r\nrest");
        for (var i = 0; i <= text.Length; i++)
        {
            var buffer = MultipartHarness.CreateSequence(text[..i], text[i..]);
            var headers = new List<KeyValuePair<string, string>>();
            var bytes = 0;
            Assert.True(MultipartHeaderParser.TryParse(buffer, headers, ref bytes, new MultipartLimits(), out var consumed));
            Assert.Equal(text.Length - 4, buffer.Slice(buffer.Start, consumed).Length);
            Assert.Equal(text.Length - 4, bytes);
            Assert.Equal("caf\u00e9", MultipartHeaderParser.CreateSection(headers).Name);
            Assert.Equal("b", headers[1].Value);
        }
    }

    [Fact]
    public void TryParse_IncompleteLine_ReturnsFalseAtLineStart()
    {
        var buffer = new ReadOnlySequence<byte>(Encoding.ASCII.GetBytes("X-A: 1\r\nX-B: 2"));
        var headers = new List<KeyValuePair<string, string>>();
        var bytes = 0;
        Assert.False(MultipartHeaderParser.TryParse(buffer, headers, ref bytes, new MultipartLimits(), out var consumed));
        Assert.Equal(8, buffer.Slice(buffer.Start, consumed).Length);
        Assert.Single(headers);
    }

    [Fact]
    public void TryParseAndCreateSection_PlainFormField_AllocateOnlyTheSectionAndItsStrings()
    {
        // A part's header work (the async methods around it are measured by the micro suite, in Release): the section,
        // its one-header array, the header's value and the field's name, about 230 bytes. With a new header list a
        // section and ContentDispositionHeaderValue it was about 600 (docs/results/2026-11-25-micro-tiny.md).
        const int Sections = 1000;
        var block = new ReadOnlySequence<byte>(Encoding.ASCII.GetBytes("Content-Disposition: form-data; name=\"field0001\"\r\n\r\n"));
        var headers = new List<KeyValuePair<string, string>>();
        var limits = new MultipartLimits();
        ParseBlock(block, headers, limits);

        var before = GC.GetAllocatedBytesForCurrentThread();
        MultipartSection? section = null;
        for (var i = 0; i < Sections; i++)
        {
            section = ParseBlock(block, headers, limits);
        }

        var perSection = (GC.GetAllocatedBytesForCurrentThread() - before) / Sections;
        Assert.Equal("field0001", section!.Name);
        Assert.InRange(perSection, 0, 300);
    }

    private static MultipartSection ParseBlock(in ReadOnlySequence<byte> block, List<KeyValuePair<string, string>> headers, MultipartLimits limits)
    {
        headers.Clear();
        var bytes = 0;
        Assert.True(MultipartHeaderParser.TryParse(block, headers, ref bytes, limits, out _));
        return MultipartHeaderParser.CreateSection(headers);
    }
}
