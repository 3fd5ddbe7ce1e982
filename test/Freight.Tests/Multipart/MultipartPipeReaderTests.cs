using System.Buffers;
using System.IO.Pipelines;
using System.Security.Cryptography;
using System.Text;
using Freight.Multipart;
using static Freight.Tests.Multipart.MultipartHarness;

namespace Freight.Tests.Multipart;

public class MultipartPipeReaderTests
{
    private static byte[] Ascii(string text) => Encoding.ASCII.GetBytes(text);

    private static byte[] MixedBody() =>
        new MultipartBodyBuilder(Boundary)
            .Field("title", "Quarterly report")
            .File("upload", "report.bin", Ascii("line1\r\nline2\rline3\nend--"))
            .Field("comment", "")
            .File("empty", "empty.txt", [], "text/plain")
            .File("second", "b.dat", Ascii("\r\n--" + Boundary[..10]))
            .Build();

    private static void AssertMixed(IReadOnlyList<ParsedPart> parts) =>
        AssertParts(
            parts,
            ("title", null, Ascii("Quarterly report")),
            ("upload", "report.bin", Ascii("line1\r\nline2\rline3\nend--")),
            ("comment", null, []),
            ("empty", "empty.txt", []),
            ("second", "b.dat", Ascii("\r\n--" + Boundary[..10])));

    [Fact]
    public async Task ReadSection_SeveralFilesAndFields_ReturnsAllSectionsWithHeaders()
    {
        var parts = await ParseBothAsync(Whole(MixedBody()), fieldsAsString: true);

        AssertMixed(parts);
        Assert.Equal("application/octet-stream", parts[1].Section.ContentType);
        Assert.Equal("text/plain", parts[3].Section.ContentType);
        Assert.Null(parts[0].Section.ContentType);
        Assert.Equal("form-data", parts[1].Section.DispositionType);
        Assert.Equal("form-data; name=\"upload\"; filename=\"report.bin\"", parts[1].Section.ContentDisposition);
        Assert.Equal(2, parts[1].Section.Headers.Count);
        Assert.Equal("application/octet-stream", parts[1].Section.GetHeader("CONTENT-TYPE"));
        Assert.Null(parts[1].Section.GetHeader("X-Missing"));
    }

    [Fact]
    public async Task ReadSection_BodySplitAtEveryPosition_ReturnsExactBytes()
    {
        var body = MixedBody();
        for (var i = 0; i <= body.Length; i++)
        {
            AssertMixed(await ParseBothAsync(SplitAt(body, i)));
            AssertMixed(await ParseWithPipeAsync(SplitAt(body, i), fieldsAsString: true));
        }
    }

    [Fact]
    public async Task ReadSection_OneByteAtATime_ReturnsExactBytes()
    {
        var body = MixedBody();
        AssertMixed(await ParseBothAsync(Chunks(body, 1)));
        AssertMixed(await ParseBothAsync(Chunks(body, 1), fieldsAsString: true));
    }

    [Fact]
    public async Task ReadSection_BoundarySplitAtEveryPosition_ReturnsExactBytes()
    {
        // Three pieces: cut twice inside the region around the second delimiter, so the delimiter straddles reads.
        var body = MixedBody();
        var delimiter = body.AsSpan(1).IndexOf(Ascii("\r\n--" + Boundary)) + 1;
        var end = delimiter + Boundary.Length + 8;
        for (var i = delimiter - 2; i <= end; i++)
        {
            for (var j = i; j <= end; j++)
            {
                AssertMixed(await ParseBothAsync([body.AsMemory(0, i), body.AsMemory(i, j - i), body.AsMemory(j)]));
            }
        }
    }

    public static TheoryData<string> TrickyData =>
    [
        "\r",
        "\n",
        "\r\n",
        "\n\r",
        "--",
        "\r\n--",
        "\r\n-",
        "\r\n--" + Boundary[..1],
        "\r\n--" + Boundary[..^1],
        "\r\n--" + Boundary[..^1] + "X",
        "--" + Boundary,
        "--" + Boundary + "--",
        "x--" + Boundary + "junk\r\n",
        "\n--" + Boundary + "\r\n",
        "\r--" + Boundary + "\r\n",
        "\r\r\n-\r\n--\r\n--" + Boundary[..5] + "\r",
        "\r\n\r\n\r\n",
        "text\r\n--" + Boundary[..^1],
        Boundary + "\r\n" + Boundary,
    ];

    [Theory]
    [MemberData(nameof(TrickyData))]
    public async Task ReadSection_BoundaryLikeBytesInData_ReturnsExactBytesAtEverySplit(string data)
    {
        var payload = Ascii(data);
        var body = new MultipartBodyBuilder(Boundary)
            .File("a", "a.bin", payload)
            .Part("Content-Disposition: form-data; name=\"b\"\r\n", payload)
            .Build();

        for (var i = 0; i <= body.Length; i++)
        {
            AssertParts(await ParseBothAsync(SplitAt(body, i)), ("a", "a.bin", payload), ("b", null, payload));
        }

        AssertParts(await ParseBothAsync(Chunks(body, 1)), ("a", "a.bin", payload), ("b", null, payload));
    }

    [Fact]
    public async Task ReadSection_QuotedBoundaryWithSpecialCharacters_ParsesEndToEnd()
    {
        Assert.True(MultipartBoundary.TryParse("multipart/form-data; boundary=\"a'()+_,-./:=? z\"", out var boundary));
        var body = new MultipartBodyBuilder(boundary)
            .Field("f", "v")
            .File("file", "x.bin", Ascii("--a'()+_,-./:=? z\r\n--a'()+_,-./:=?"))
            .Build();

        for (var i = 0; i <= body.Length; i++)
        {
            AssertParts(
                await ParseBothAsync(SplitAt(body, i), boundary),
                ("f", null, Ascii("v")),
                ("file", "x.bin", Ascii("--a'()+_,-./:=? z\r\n--a'()+_,-./:=?")));
        }
    }

    [Fact]
    public async Task ReadSection_OneCharacterBoundary_ParsesEndToEnd()
    {
        var body = new MultipartBodyBuilder("x").File("f", "f", Ascii("-x\r\n-x\r\n--\r\n-")).Field("g", "--x-").Build();
        for (var i = 0; i <= body.Length; i++)
        {
            AssertParts(await ParseBothAsync(SplitAt(body, i), "x"), ("f", "f", Ascii("-x\r\n-x\r\n--\r\n-")), ("g", null, Ascii("--x-")));
        }
    }

    [Fact]
    public async Task ReadSection_PreambleAndEpilogue_AreIgnored()
    {
        // Boundary text not preceded by CRLF, and a CRLF-- followed by a boundary prefix, are preamble.
        var body = new MultipartBodyBuilder(Boundary, "preamble --" + Boundary + " inline\r\n--" + Boundary[..5] + "\r\n")
            .Field("a", "1")
            .Build(epilogue: "\r\nThis is the epilogue.\r\n--" + Boundary + "\r\nContent-Disposition: form-data; name=\"ghost\"\r\n\r\nx");

        for (var i = 0; i <= body.Length; i++)
        {
            AssertParts(await ParseBothAsync(SplitAt(body, i)), ("a", null, Ascii("1")));
        }
    }

    [Fact]
    public async Task ReadSection_PreambleEndingInCrlf_FindsFirstDelimiter()
    {
        var body = Ascii("\r\n--" + Boundary + "\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--" + Boundary + "--");
        for (var i = 0; i <= body.Length; i++)
        {
            AssertParts(await ParseBothAsync(SplitAt(body, i)), ("a", null, Ascii("v")));
        }
    }

    [Fact]
    public async Task ReadSection_TransportPaddingAfterBoundaries_IsIgnored()
    {
        var body = new MultipartBodyBuilder(Boundary)
            .Part("Content-Disposition: form-data; name=\"a\"\r\n", Ascii("1"), padding: " \t ")
            .Part("Content-Disposition: form-data; name=\"b\"\r\n", Ascii("2"), padding: "\t")
            .Build(epilogue: "", closePadding: "  \t");

        for (var i = 0; i <= body.Length; i++)
        {
            AssertParts(await ParseBothAsync(SplitAt(body, i)), ("a", null, Ascii("1")), ("b", null, Ascii("2")));
        }
    }

    [Fact]
    public async Task ReadSection_ClosingDelimiterAtEndOfBody_WithoutTrailingCrlf()
    {
        var body = new MultipartBodyBuilder(Boundary).Field("a", "1").Build(epilogue: "");
        AssertParts(await ParseBothAsync(Chunks(body, 1)), ("a", null, Ascii("1")));
    }

    [Fact]
    public async Task ReadSection_NoSectionsOnlyCloseDelimiter_ReturnsNoSections()
    {
        Assert.Empty(await ParseBothAsync(Whole(Ascii("--" + Boundary + "--\r\n"))));
    }

    [Fact]
    public async Task ReadSection_LargeRandomFile_IsIntact()
    {
        var random = new Random(7578);
        var file = new byte[3 * 1024 * 1024 + 12345];
        random.NextBytes(file);
        var body = new MultipartBodyBuilder(Boundary)
            .Field("before", "x")
            .File("big", "big.bin", file)
            .Field("after", "y")
            .Build();

        var expected = SHA256.HashData(file);
        foreach (var pieces in new[] { Chunks(body, 64 * 1024), Chunks(body, 4096), RandomChunks(body, random, 20000), Chunks(body, 1000) })
        {
            var parts = await ParseBothAsync(pieces);
            Assert.Equal(3, parts.Count);
            Assert.Equal(expected, SHA256.HashData(parts[1].Data));
            Assert.Equal(Ascii("y"), parts[2].Data);
        }

        var whole = await ParseWithPipeAsync(Whole(body));
        Assert.Equal(expected, SHA256.HashData(whole[1].Data));
    }

    [Fact]
    public async Task ReadSectionData_StreamsBeforeBodyIsComplete()
    {
        var pipe = new Pipe(new PipeOptions(pauseWriterThreshold: 0, resumeWriterThreshold: 0, useSynchronizationContext: false));
        var reader = new MultipartPipeReader(pipe.Reader, Boundary);
        await pipe.Writer.WriteAsync(Ascii("--" + Boundary + "\r\nContent-Disposition: form-data; name=\"f\"; filename=\"f\"\r\n\r\n"));

        var section = await reader.ReadNextSectionAsync();
        Assert.Equal("f", section!.FileName);

        // 1000 bytes ending in a partial delimiter: all but the partial delimiter is handed out right away.
        var data = new byte[1000];
        data.AsSpan().Fill((byte)'d');
        var tail = Ascii("\r\n--" + Boundary[..4]);
        tail.CopyTo(data.AsSpan(data.Length - tail.Length));
        await pipe.Writer.WriteAsync(data);

        var chunk = await reader.ReadSectionDataAsync();
        Assert.False(chunk.IsCompleted);
        Assert.Equal(data.Length - tail.Length, chunk.Data.Length);

        // A CR that cannot start a delimiter is not held back.
        await pipe.Writer.WriteAsync(Ascii("X\r"));
        chunk = await reader.ReadSectionDataAsync();
        Assert.Equal(tail.Length + 1, chunk.Data.Length);
        Assert.False(chunk.IsCompleted);

        // Nothing handed out yet can still become data; the pending "\r" waits for the next byte.
        var pending = reader.ReadSectionDataAsync();
        Assert.False(pending.IsCompleted);
        await pipe.Writer.WriteAsync(Ascii("\n--" + Boundary + "--"));
        chunk = await pending;
        Assert.True(chunk.IsCompleted);
        Assert.Equal(0, chunk.Data.Length);

        await pipe.Writer.CompleteAsync();
        Assert.Null(await reader.ReadNextSectionAsync());
        Assert.Null(await reader.ReadNextSectionAsync());
    }

    [Fact]
    public async Task ReadNextSection_UnreadSectionData_IsSkipped()
    {
        var body = MixedBody();
        for (var i = 0; i <= body.Length; i += 7)
        {
            var names = await Task.Run(async () =>
            {
                var pipe = new Pipe(new PipeOptions(readerScheduler: PipeScheduler.Inline, writerScheduler: PipeScheduler.Inline, pauseWriterThreshold: 0, resumeWriterThreshold: 0, useSynchronizationContext: false));
                var reader = new MultipartPipeReader(pipe.Reader, Boundary);
                var collect = CollectNamesAsync(reader);
                foreach (var piece in SplitAt(body, i))
                {
                    await pipe.Writer.WriteAsync(piece);
                }

                await pipe.Writer.CompleteAsync();
                return await collect;
            });
            Assert.Equal(["title", "upload", "comment", "empty", "second"], names);
        }

        static async Task<List<string?>> CollectNamesAsync(MultipartPipeReader reader)
        {
            var names = new List<string?>();
            MultipartSection? section;
            while ((section = await reader.ReadNextSectionAsync().ConfigureAwait(false)) is not null)
            {
                names.Add(section.Name);
                if (section.Name == "upload")
                {
                    // Read one chunk, leave the rest.
                    await reader.ReadSectionDataAsync().ConfigureAwait(false);
                }
            }

            return names;
        }
    }

    [Fact]
    public async Task ReadSectionData_AfterLastChunk_ReturnsEmptyCompletedChunk()
    {
        var pipe = new Pipe();
        await pipe.Writer.WriteAsync(new MultipartBodyBuilder(Boundary).File("f", "f", Ascii("abc")).Build());
        await pipe.Writer.CompleteAsync();
        var reader = new MultipartPipeReader(pipe.Reader, Boundary);

        // Before the first section there is no data to read.
        var early = await reader.ReadSectionDataAsync();
        Assert.True(early.IsCompleted && early.Data.IsEmpty);
        Assert.NotNull(await reader.ReadNextSectionAsync());
        var chunk = await reader.ReadSectionDataAsync();
        Assert.True(chunk.IsCompleted);
        Assert.Equal(Ascii("abc"), chunk.Data.ToArray());
        chunk = await reader.ReadSectionDataAsync();
        Assert.True(chunk.IsCompleted);
        Assert.True(chunk.Data.IsEmpty);
        Assert.Null(await reader.ReadNextSectionAsync());
    }

    [Fact]
    public async Task ReleaseChunk_AbandoningMidSection_LeavesPipeReadable()
    {
        var pipe = new Pipe();
        await pipe.Writer.WriteAsync(Ascii("--" + Boundary + "\r\nContent-Disposition: form-data; name=\"f\"; filename=\"f\"\r\n\r\npartial data"));
        var reader = new MultipartPipeReader(pipe.Reader, Boundary);
        Assert.NotNull(await reader.ReadNextSectionAsync());
        var chunk = await reader.ReadSectionDataAsync();
        Assert.Equal(Ascii("partial data"), chunk.Data.ToArray());

        // The chunk still holds the pipe's read; releasing it lets someone else (e.g. Kestrel draining) read on.
        Assert.Throws<InvalidOperationException>(() => pipe.Reader.TryRead(out _));
        reader.ReleaseChunk();
        reader.ReleaseChunk();
        await pipe.Writer.WriteAsync(Ascii("more"));
        Assert.True(pipe.Reader.TryRead(out var result));
        Assert.Equal(Ascii("more"), result.Buffer.ToArray());
        pipe.Reader.AdvanceTo(result.Buffer.End);
    }

    [Fact]
    public async Task ReadSection_HeaderVariants_AreParsed()
    {
        var body = new MultipartBodyBuilder(Boundary)
            .Part("content-disposition: form-data; name=\"na;me\"; filename=\"r\u00e9sum\u00e9 \\\"1\\\".pdf\"\r\nX-Custom:   spaced value\t\r\n", Ascii("1"))
            .Part("Content-Disposition: form-data; name=plain; filename=\"ascii.txt\"; filename*=UTF-8''%E2%82%AC%20rates.txt\r\n", Ascii("2"))
            .Part("Content-Disposition: form-data; name=\"blank\"; filename=\"\"\r\nContent-Type: application/octet-stream\r\n", [])
            .Part("", Ascii("no headers"))
            .Part("Content-Type: text/plain; charset=utf-8\r\n", Ascii("typed"))
            .Build();

        var parts = await ParseBothAsync(Chunks(body, 3));

        Assert.Equal("na;me", parts[0].Section.Name);
        Assert.Equal("r\u00e9sum\u00e9 \\\"1\\\".pdf", parts[0].Section.FileName);
        Assert.Equal("spaced value", parts[0].Section.GetHeader("x-custom"));
        Assert.Equal("content-disposition", parts[0].Section.Headers[0].Key);

        Assert.Equal("plain", parts[1].Section.Name);
        Assert.Equal("\u20ac rates.txt", parts[1].Section.FileName);

        Assert.Equal("blank", parts[2].Section.Name);
        Assert.Equal(string.Empty, parts[2].Section.FileName);

        Assert.Null(parts[3].Section.ContentDisposition);
        Assert.Null(parts[3].Section.Name);
        Assert.Null(parts[3].Section.FileName);
        Assert.Empty(parts[3].Section.Headers);
        Assert.Equal(Ascii("no headers"), parts[3].Data);

        Assert.Equal("text/plain; charset=utf-8", parts[4].Section.ContentType);
    }

    [Fact]
    public async Task ReadSectionAsString_MultiByteUtf8SplitAcrossReads_DecodesExactly()
    {
        var value = "h\u00e9llo \u20ac \U0001F600 \r\n--" + Boundary[..^1] + "x";
        var body = new MultipartBodyBuilder(Boundary).Field("v", value).Build();
        for (var i = 0; i <= body.Length; i++)
        {
            AssertParts(await ParseBothAsync(SplitAt(body, i), fieldsAsString: true), ("v", null, Encoding.UTF8.GetBytes(value)));
        }

        AssertParts(await ParseBothAsync(Chunks(body, 1), fieldsAsString: true), ("v", null, Encoding.UTF8.GetBytes(value)));
    }

    [Fact]
    public async Task ReadSectionAsString_AtLimit_Succeeds_OverLimit_ThrowsFormatException()
    {
        var body = new MultipartBodyBuilder(Boundary).Field("v", "12345").Build();
        foreach (var pieces in new[] { Whole(body), Chunks(body, 1) })
        {
            var reader = await OpenAsync(pieces);
            Assert.NotNull(await reader.ReadNextSectionAsync());
            Assert.Equal("12345", await reader.ReadSectionAsStringAsync(5));

            reader = await OpenAsync(pieces);
            Assert.NotNull(await reader.ReadNextSectionAsync());
            await Assert.ThrowsAsync<MultipartFormatException>(async () => await reader.ReadSectionAsStringAsync(4));
        }

        static async Task<MultipartPipeReader> OpenAsync(IReadOnlyList<ReadOnlyMemory<byte>> pieces)
        {
            var pipe = new Pipe(new PipeOptions(pauseWriterThreshold: 0, resumeWriterThreshold: 0));
            foreach (var piece in pieces)
            {
                await pipe.Writer.WriteAsync(piece);
            }

            await pipe.Writer.CompleteAsync();
            return new MultipartPipeReader(pipe.Reader, Boundary);
        }
    }

    [Fact]
    public async Task ReadSection_LimitsAtExactBoundary_AreAccepted()
    {
        var headers = "Content-Disposition: form-data; name=\"a\"\r\nX-1: a\r\nX-2: b\r\n";
        var body = new MultipartBodyBuilder(Boundary).Part(headers, Ascii("v")).Field("b", "w").Build();

        // Header block = the header lines plus the empty line that ends it.
        var limits = new MultipartLimits { MaxHeaderCount = 3, MaxHeadersBytes = headers.Length + 2, MaxSections = 2 };
        AssertParts(await ParseBothAsync(Chunks(body, 1), limits: limits), ("a", null, Ascii("v")), ("b", null, Ascii("w")));
    }

    [Fact]
    public void Limits_Defaults_MatchDocumentation()
    {
        var limits = new MultipartLimits();
        Assert.Equal(16 * 1024, limits.MaxHeadersBytes);
        Assert.Equal(16, limits.MaxHeaderCount);
        Assert.Equal(128, limits.MaxSections);
        Assert.Throws<ArgumentOutOfRangeException>(() => limits.MaxSections = 0);
    }

    [Fact]
    public async Task ReadSection_RealBrowserShapedBody_Parses()
    {
        const string boundary = "----WebKitFormBoundaryABCDEFGHIJKLMNOP";
        var text =
            "------WebKitFormBoundaryABCDEFGHIJKLMNOP\r\n" +
            "Content-Disposition: form-data; name=\"description\"\r\n\r\n" +
            "my files\r\n" +
            "------WebKitFormBoundaryABCDEFGHIJKLMNOP\r\n" +
            "Content-Disposition: form-data; name=\"files\"; filename=\"a.txt\"\r\n" +
            "Content-Type: text/plain\r\n\r\n" +
            "hello\n\r\n" +
            "------WebKitFormBoundaryABCDEFGHIJKLMNOP\r\n" +
            "Content-Disposition: form-data; name=\"files\"; filename=\"b.txt\"\r\n" +
            "Content-Type: text/plain\r\n\r\n" +
            "world\r\n" +
            "------WebKitFormBoundaryABCDEFGHIJKLMNOP--\r\n";
        AssertParts(
            await ParseBothAsync(Chunks(Ascii(text), 5), boundary, fieldsAsString: true),
            ("description", null, Ascii("my files")),
            ("files", "a.txt", Ascii("hello\n")),
            ("files", "b.txt", Ascii("world")));
    }
}
