using System.IO.Pipelines;
using System.Text;
using Freight.Multipart;
using static Freight.Tests.Multipart.MultipartHarness;

namespace Freight.Tests.Multipart;

public class MultipartMalformedTests
{
    private const string Disposition = "Content-Disposition: form-data; name=\"a\"\r\n";

    private static byte[] Ascii(string text) => Encoding.ASCII.GetBytes(text);

    private static string Open => "--" + Boundary + "\r\n";

    public static TheoryData<string, string> MalformedBodies => new()
    {
        { "empty body", "" },
        { "no boundary at all", "just some text\r\n" },
        { "boundary without CRLF after preamble", "preamble--" + Boundary + "\r\n" + Disposition + "\r\nv" },
        { "missing closing boundary", Open + Disposition + "\r\nvalue" },
        { "missing closing boundary after CRLF", Open + Disposition + "\r\nvalue\r\n" },
        { "closing boundary prefix only", Open + Disposition + "\r\nvalue\r\n--" + Boundary[..^1] },
        { "ends right after a delimiter", Open + Disposition + "\r\nvalue\r\n--" + Boundary },
        { "ends after delimiter and one dash", Open + Disposition + "\r\nvalue\r\n--" + Boundary + "-" },
        { "ends inside transport padding", Open + Disposition + "\r\nvalue\r\n--" + Boundary + "  " },
        { "ends after padding and CR", Open + Disposition + "\r\nvalue\r\n--" + Boundary + " \r" },
        { "ends right after first boundary", "--" + Boundary },
        { "ends inside headers", Open + "Content-Disposition: form-da" },
        { "ends after header line", Open + Disposition },
        { "ends after header CR", Open + Disposition + "\r" },
        { "junk after first boundary", "--" + Boundary + "junk\r\n" + Disposition + "\r\nv\r\n--" + Boundary + "--" },
        { "junk after a delimiter in data", Open + Disposition + "\r\nv\r\n--" + Boundary + "junk\r\nmore\r\n--" + Boundary + "--" },
        { "dash then junk after delimiter", Open + Disposition + "\r\nv\r\n--" + Boundary + "-x\r\n--" + Boundary + "--" },
        { "bare LF after boundary", "--" + Boundary + "\n" + Disposition + "\r\nv\r\n--" + Boundary + "--" },
        { "bare CR after boundary", "--" + Boundary + "\rX" + Disposition + "\r\nv\r\n--" + Boundary + "--" },
        { "header line without colon", Open + "Content-Disposition form-data\r\n\r\nv\r\n--" + Boundary + "--" },
        { "header with empty name", Open + ": value\r\n\r\nv\r\n--" + Boundary + "--" },
        { "header with space before colon", Open + "Content-Disposition : form-data; name=a\r\n\r\nv\r\n--" + Boundary + "--" },
        { "obsolete line folding", Open + Disposition + " continued\r\n\r\nv\r\n--" + Boundary + "--" },
        { "header line ending in bare LF", Open + "Content-Disposition: form-data; name=\"a\"\n\r\nv\r\n--" + Boundary + "--" },
        { "headers ending in bare LF", Open + Disposition + "\nv\r\n--" + Boundary + "--" },
        { "bare CR inside header value", Open + "X-A: a\rb\r\n\r\nv\r\n--" + Boundary + "--" },
        { "NUL inside header value", Open + "X-A: a\0b\r\n\r\nv\r\n--" + Boundary + "--" },
        { "duplicate Content-Disposition", Open + Disposition + Disposition + "\r\nv\r\n--" + Boundary + "--" },
        { "duplicate Content-Type", Open + Disposition + "Content-Type: a/b\r\nContent-Type: c/d\r\n\r\nv\r\n--" + Boundary + "--" },
        { "invalid Content-Disposition", Open + "Content-Disposition: ;;;\"\r\n\r\nv\r\n--" + Boundary + "--" },
        { "missing closing boundary in second part", Open + Disposition + "\r\nv\r\n--" + Boundary + "\r\n" + Disposition + "\r\nw" },
    };

    [Theory]
    [MemberData(nameof(MalformedBodies))]
    public async Task ReadSection_MalformedBody_ThrowsMultipartFormatException(string description, string body)
    {
        Assert.NotNull(description);
        var bytes = Ascii(body);
        await AssertMalformedAsync(Whole(bytes));
        await AssertMalformedAsync(Chunks(bytes, 1));
        await AssertMalformedAsync(Whole(bytes), fieldsAsString: true);
        for (var i = 0; i <= bytes.Length; i++)
        {
            await AssertMalformedAsync(SplitAt(bytes, i));
        }
    }

    [Fact]
    public async Task ReadSection_OversizedHeaderLine_ThrowsMultipartFormatException()
    {
        var body = Ascii(Open + "X-Big: " + new string('a', 17 * 1024) + "\r\n\r\nv\r\n--" + Boundary + "--");
        await AssertMalformedAsync(Whole(body));
        await AssertMalformedAsync(Chunks(body, 1000));

        // The same line with no end at all: rejected once the limit is passed, without waiting for the body's end.
        var endless = Ascii(Open + "X-Big: " + new string('a', 17 * 1024));
        await AssertMalformedAsync(Chunks(endless, 4096));
    }

    [Fact]
    public async Task ReadSection_OversizedHeaderBlock_ThrowsMultipartFormatException()
    {
        var headers = new StringBuilder(Disposition);
        for (var i = 0; i < 10; i++)
        {
            headers.Append("X-").Append(i).Append(": ").Append('v', 40).Append("\r\n");
        }

        var body = new MultipartBodyBuilder(Boundary).Part(headers.ToString(), Ascii("v")).Build();
        var limits = new MultipartLimits { MaxHeadersBytes = headers.Length + 1 };
        await AssertMalformedAsync(Whole(body), limits: limits);
        await AssertMalformedAsync(Chunks(body, 1), limits: limits);

        limits.MaxHeadersBytes = headers.Length + 2;
        Assert.Single(await ParseBothAsync(Chunks(body, 1), limits: limits));
    }

    [Fact]
    public async Task ReadSection_TooManyHeaders_ThrowsMultipartFormatException()
    {
        var headers = new StringBuilder(Disposition);
        for (var i = 0; i < 16; i++)
        {
            headers.Append("X-").Append(i).Append(": v\r\n");
        }

        var body = new MultipartBodyBuilder(Boundary).Part(headers.ToString(), Ascii("v")).Build();
        await AssertMalformedAsync(Whole(body));
        await AssertMalformedAsync(Chunks(body, 1));
    }

    [Fact]
    public async Task ReadSection_TooManySections_ThrowsMultipartFormatException()
    {
        var builder = new MultipartBodyBuilder(Boundary);
        for (var i = 0; i < 4; i++)
        {
            builder.Field("f" + i, "v");
        }

        var body = builder.Build();
        await AssertMalformedAsync(Whole(body), limits: new MultipartLimits { MaxSections = 3 });
        Assert.Equal(4, (await ParseBothAsync(Whole(body), limits: new MultipartLimits { MaxSections = 4 })).Count);

        var many = new MultipartBodyBuilder(Boundary);
        for (var i = 0; i < 129; i++)
        {
            many.Field("f", "v");
        }

        await AssertMalformedAsync(Whole(many.Build()));
    }

    [Fact]
    public async Task ReadSection_LongTransportPadding_ThrowsMultipartFormatException()
    {
        var body = Ascii("--" + Boundary + new string(' ', 40000) + "\r\n" + Disposition + "\r\nv\r\n--" + Boundary + "--");
        await AssertMalformedAsync(Chunks(body, 4096));
    }

    [Fact]
    public async Task ReadSection_TruncatedAtEveryPosition_ThrowsOnlyMultipartFormatException()
    {
        var body = new MultipartBodyBuilder(Boundary, "pre")
            .Field("a", "value")
            .File("f", "f.bin", Ascii("\r\n--" + Boundary[..3] + "data"))
            .Build(epilogue: "\r\nepilogue");
        var closeEnd = Encoding.ASCII.GetString(body).LastIndexOf("--" + Boundary + "--", StringComparison.Ordinal) + Boundary.Length + 4;

        for (var length = 0; length < body.Length; length++)
        {
            var truncated = body[..length];
            if (length >= closeEnd)
            {
                Assert.Equal(2, (await ParseBothAsync(Chunks(truncated, 3))).Count);
            }
            else
            {
                await AssertMalformedAsync(Whole(truncated));
                await AssertMalformedAsync(Chunks(truncated, 3), fieldsAsString: true);
            }
        }
    }

    [Fact]
    public async Task ReadSection_RandomlyMutatedBodies_ThrowOnlyMultipartFormatException()
    {
        var random = new Random(2046);
        var original = new MultipartBodyBuilder(Boundary, "preamble")
            .Field("a", "value")
            .File("f", "f.bin", Ascii("\r\n--" + Boundary[..3] + "data\r\n"))
            .Part("Content-Disposition: form-data; name=\"x\"; filename*=UTF-8''%E2%82%AC.txt\r\nContent-Type: text/plain\r\n", Ascii("z"))
            .Build(epilogue: "\r\nepilogue");
        var alphabet = Ascii("\r\n-:;=\" \t\0" + Boundary[..4] + "ab");

        for (var iteration = 0; iteration < 3000; iteration++)
        {
            var body = new List<byte>(original);
            var mutations = random.Next(1, 4);
            for (var m = 0; m < mutations; m++)
            {
                var at = random.Next(body.Count);
                switch (random.Next(3))
                {
                    case 0:
                        body[at] = alphabet[random.Next(alphabet.Length)];
                        break;
                    case 1:
                        body.Insert(at, alphabet[random.Next(alphabet.Length)]);
                        break;
                    default:
                        body.RemoveAt(at);
                        break;
                }
            }

            var pieces = RandomChunks([.. body], random, 16);
            try
            {
                await ParseSegmentedAsync(pieces, fieldsAsString: iteration % 2 == 0);
                await ParseWithPipeAsync(pieces, fieldsAsString: iteration % 2 == 1);
            }
            catch (MultipartFormatException)
            {
                // Expected for most mutations; any other exception type fails the test.
            }
        }
    }

    [Fact]
    public async Task ReadNextSection_AfterFormatError_KeepsThrowingFormatException()
    {
        var pipe = new Pipe();
        await pipe.Writer.WriteAsync(Ascii(Open + "bad header\r\n\r\n"));
        await pipe.Writer.CompleteAsync();
        var reader = new MultipartPipeReader(pipe.Reader, Boundary);

        await Assert.ThrowsAsync<MultipartFormatException>(async () => await reader.ReadNextSectionAsync());
        await Assert.ThrowsAsync<MultipartFormatException>(async () => await reader.ReadNextSectionAsync());
        await Assert.ThrowsAsync<MultipartFormatException>(async () => await reader.ReadSectionDataAsync());

        // The pipe was not left mid-read.
        var result = await pipe.Reader.ReadAsync();
        pipe.Reader.AdvanceTo(result.Buffer.End);
    }

    [Fact]
    public async Task ReadSectionData_Canceled_ThrowsOperationCanceled()
    {
        var pipe = new Pipe();
        await pipe.Writer.WriteAsync(Ascii(Open + Disposition + "\r\nsome data"));
        var reader = new MultipartPipeReader(pipe.Reader, Boundary);
        Assert.NotNull(await reader.ReadNextSectionAsync());
        var first = await reader.ReadSectionDataAsync();
        Assert.False(first.IsCompleted);

        using var cts = new CancellationTokenSource();
        var pending = reader.ReadSectionDataAsync(cts.Token);
        await cts.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await pending);
    }
}
