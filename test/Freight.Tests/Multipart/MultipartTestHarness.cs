using System.Buffers;
using System.IO.Pipelines;
using System.Text;
using Freight.Multipart;
using Freight.Testing.Pipelines;

namespace Freight.Tests.Multipart;

/// <summary>One parsed section: its headers and the exact bytes of its body.</summary>
internal sealed record ParsedPart(MultipartSection Section, byte[] Data);

/// <summary>Builds multipart bodies byte by byte, as RFC 2046 §5.1.1 lays them out.</summary>
internal sealed class MultipartBodyBuilder
{
    private readonly MemoryStream _body = new();
    private readonly string _boundary;
    private bool _first = true;

    public MultipartBodyBuilder(string boundary, string preamble = "")
    {
        _boundary = boundary;
        Write(preamble);
    }

    public MultipartBodyBuilder Part(string rawHeaders, byte[] data, string padding = "")
    {
        // The first boundary may open the body directly; every later one is preceded by CRLF.
        Write(_first && _body.Length == 0 ? "--" : "\r\n--");
        _first = false;
        Write(_boundary + padding + "\r\n" + rawHeaders + "\r\n");
        _body.Write(data);
        return this;
    }

    public MultipartBodyBuilder Field(string name, string value) =>
        Part($"Content-Disposition: form-data; name=\"{name}\"\r\n", Encoding.UTF8.GetBytes(value));

    public MultipartBodyBuilder File(string name, string fileName, byte[] data, string contentType = "application/octet-stream") =>
        Part($"Content-Disposition: form-data; name=\"{name}\"; filename=\"{fileName}\"\r\nContent-Type: {contentType}\r\n", data);

    public byte[] Build(string epilogue = "\r\n", string closePadding = "")
    {
        Write("\r\n--" + _boundary + "--" + closePadding + epilogue);
        return _body.ToArray();
    }

    private void Write(string text) => _body.Write(Encoding.UTF8.GetBytes(text));
}

/// <summary>Feeds bodies to <see cref="MultipartPipeReader"/> in controlled pieces and collects the sections.</summary>
internal static class MultipartHarness
{
    public const string Boundary = "----FreightBoundary7MA4YWxkTrZu0gW";

    public static IReadOnlyList<ReadOnlyMemory<byte>> Whole(byte[] body) => [body];

    public static IReadOnlyList<ReadOnlyMemory<byte>> SplitAt(byte[] body, int index) =>
        [body.AsMemory(0, index), body.AsMemory(index)];

    public static IReadOnlyList<ReadOnlyMemory<byte>> Chunks(byte[] body, int size)
    {
        var pieces = new List<ReadOnlyMemory<byte>>();
        for (var i = 0; i < body.Length; i += size)
        {
            pieces.Add(body.AsMemory(i, Math.Min(size, body.Length - i)));
        }

        return pieces;
    }

    public static IReadOnlyList<ReadOnlyMemory<byte>> RandomChunks(byte[] body, Random random, int maxSize)
    {
        var pieces = new List<ReadOnlyMemory<byte>>();
        for (var i = 0; i < body.Length;)
        {
            var size = Math.Min(random.Next(1, maxSize + 1), body.Length - i);
            pieces.Add(body.AsMemory(i, size));
            i += size;
        }

        return pieces;
    }

    /// <summary>
    /// Parses through a real <see cref="Pipe"/> with inline schedulers: each piece is written and flushed, and the
    /// reader runs to its next wait inside that flush, so it sees exactly the segmentation the pieces describe.
    /// </summary>
    public static Task<List<ParsedPart>> ParseWithPipeAsync(
        IReadOnlyList<ReadOnlyMemory<byte>> pieces,
        string boundary = Boundary,
        MultipartLimits? limits = null,
        bool fieldsAsString = false) =>
        Task.Run(async () =>
        {
            var pipe = new Pipe(new PipeOptions(
                readerScheduler: PipeScheduler.Inline,
                writerScheduler: PipeScheduler.Inline,
                pauseWriterThreshold: 0,
                resumeWriterThreshold: 0,
                useSynchronizationContext: false));
            var consume = ConsumeAsync(new MultipartPipeReader(pipe.Reader, boundary, limits), fieldsAsString);
            foreach (var piece in pieces)
            {
                await pipe.Writer.WriteAsync(piece).ConfigureAwait(false);
            }

            await pipe.Writer.CompleteAsync().ConfigureAwait(false);
            return await consume.ConfigureAwait(false);
        });

    /// <summary>Parses through <see cref="SegmentedPipeReader"/>: every piece is its own buffer segment.</summary>
    public static async Task<List<ParsedPart>> ParseSegmentedAsync(
        IReadOnlyList<ReadOnlyMemory<byte>> pieces,
        string boundary = Boundary,
        MultipartLimits? limits = null,
        bool fieldsAsString = false)
    {
        var body = new SegmentedPipeReader(pieces);
        var parts = await ConsumeAsync(new MultipartPipeReader(body, boundary, limits), fieldsAsString);
        Assert.False(body.IsReading, "The reader left the pipe mid-read.");
        return parts;
    }

    /// <summary>Parses with both feeders and checks they agree.</summary>
    public static async Task<List<ParsedPart>> ParseBothAsync(
        IReadOnlyList<ReadOnlyMemory<byte>> pieces,
        string boundary = Boundary,
        MultipartLimits? limits = null,
        bool fieldsAsString = false)
    {
        var viaPipe = await ParseWithPipeAsync(pieces, boundary, limits, fieldsAsString);
        var viaSegments = await ParseSegmentedAsync(pieces, boundary, limits, fieldsAsString);
        Assert.Equal(viaPipe.Count, viaSegments.Count);
        for (var i = 0; i < viaPipe.Count; i++)
        {
            Assert.Equal(viaPipe[i].Data, viaSegments[i].Data);
            Assert.Equal(viaPipe[i].Section.Headers, viaSegments[i].Section.Headers);
        }

        return viaPipe;
    }

    /// <summary>Both feeders must throw <see cref="MultipartFormatException"/> (that exact type).</summary>
    public static async Task AssertMalformedAsync(
        IReadOnlyList<ReadOnlyMemory<byte>> pieces,
        string boundary = Boundary,
        MultipartLimits? limits = null,
        bool fieldsAsString = false)
    {
        await Assert.ThrowsAsync<MultipartFormatException>(() => ParseWithPipeAsync(pieces, boundary, limits, fieldsAsString));
        await Assert.ThrowsAsync<MultipartFormatException>(() => ParseSegmentedAsync(pieces, boundary, limits, fieldsAsString));
    }

    public static void AssertParts(IReadOnlyList<ParsedPart> actual, params (string? Name, string? FileName, byte[] Data)[] expected)
    {
        Assert.Equal(expected.Length, actual.Count);
        for (var i = 0; i < expected.Length; i++)
        {
            Assert.Equal(expected[i].Name, actual[i].Section.Name);
            Assert.Equal(expected[i].FileName, actual[i].Section.FileName);
            Assert.Equal(expected[i].Data, actual[i].Data);
        }
    }

    /// <summary>The server's consumer loop: files chunk by chunk, fields (optionally) as strings.</summary>
    public static async Task<List<ParsedPart>> ConsumeAsync(MultipartPipeReader reader, bool fieldsAsString)
    {
        var parts = new List<ParsedPart>();
        MultipartSection? section;
        while ((section = await reader.ReadNextSectionAsync().ConfigureAwait(false)) is not null)
        {
            if (fieldsAsString && section.FileName is null)
            {
                var value = await reader.ReadSectionAsStringAsync(1 << 20).ConfigureAwait(false);
                parts.Add(new ParsedPart(section, Encoding.UTF8.GetBytes(value)));
                continue;
            }

            var data = new ArrayBufferWriter<byte>();
            while (true)
            {
                var chunk = await reader.ReadSectionDataAsync().ConfigureAwait(false);

                // Only the last chunk may be empty: an empty non-final chunk would mean the reader is spinning.
                Assert.True(chunk.IsCompleted || !chunk.Data.IsEmpty, "Empty chunk before the end of the section.");
                foreach (var segment in chunk.Data)
                {
                    data.Write(segment.Span);
                }

                if (chunk.IsCompleted)
                {
                    break;
                }
            }

            parts.Add(new ParsedPart(section, data.WrittenSpan.ToArray()));
        }

        return parts;
    }

    public static ReadOnlySequence<byte> CreateSequence(params byte[][] segments)
    {
        TestSegment? first = null;
        TestSegment? last = null;
        long runningIndex = 0;
        foreach (var bytes in segments)
        {
            var segment = new TestSegment(bytes, runningIndex);
            runningIndex += bytes.Length;
            if (last is null)
            {
                first = segment;
            }
            else
            {
                last.SetNext(segment);
            }

            last = segment;
        }

        return first is null || last is null
            ? ReadOnlySequence<byte>.Empty
            : new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length);
    }
}
