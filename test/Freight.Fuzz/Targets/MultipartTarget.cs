using System.Buffers;
using System.Text;
using Freight.Multipart;
using Freight.Testing.Pipelines;

namespace Freight.Fuzz;

/// <summary>
/// <see cref="MultipartBoundary"/> and <see cref="MultipartPipeReader"/> (with the header parser and delimiter search
/// under it). Input: one control byte, a Content-Type line, then the body. The body is parsed twice, whole and cut
/// into pieces of the size the control byte picks, through a <see cref="SegmentedPipeReader"/> (which fails a reader
/// that spins or advances wrongly). Only <see cref="MultipartFormatException"/> may escape; both parses must agree on
/// every section and on the outcome; limits hold; no section's data contains the delimiter; header names are
/// tokens and values hold no CR, LF or NUL.
/// </summary>
internal sealed class MultipartTarget : IFuzzTarget
{
    // Small limits, so inputs of a few hundred bytes reach every one of them.
    private static readonly MultipartLimits s_limits = new() { MaxHeadersBytes = 256, MaxHeaderCount = 4, MaxSections = 8 };

    // Fields read as strings are capped here (ReadSectionAsStringAsync's limit).
    private const int MaxFieldBytes = 64;

    // Used when the Content-Type line has no usable boundary, so the body is still parsed.
    private const string FallbackBoundary = "b";

    public string Name => "multipart";

    public void Run(ReadOnlySpan<byte> input)
    {
        if (input.IsEmpty)
        {
            return;
        }

        // Control byte: bits 0-5 the piece size - 1 (0 = whole), bit 6 fields as strings, bit 7 skip odd sections' data.
        var control = input[0];
        var pieceSize = control & 0x3F;
        var mode = new ConsumeMode(FieldsAsString: (control & 0x40) != 0, SkipOddSections: (control & 0x80) != 0);
        var rest = input[1..];
        var newline = rest.IndexOf((byte)'\n');
        var contentTypeLine = newline < 0 ? rest : rest[..newline];
        var body = newline < 0 ? [] : rest[(newline + 1)..];

        var contentType = FuzzInput.Latin1(contentTypeLine);
        string boundary;
        if (MultipartBoundary.TryParse(contentType, out var parsed))
        {
            Invariant.Check(MultipartBoundary.IsValid(parsed) && contentType.Contains(parsed, StringComparison.Ordinal), "a parsed boundary is valid and comes from the header");
            boundary = parsed;
        }
        else
        {
            Invariant.Check(parsed.Length == 0, "a refused Content-Type yields no boundary");
            boundary = FallbackBoundary;
        }

        var bytes = body.ToArray();
        var whole = Parse(bytes, [bytes], boundary, mode);
        var cut = Parse(bytes, Pieces(bytes, pieceSize == 0 ? 1 : pieceSize), boundary, mode);
        Invariant.Check(whole.Malformed == cut.Malformed, $"whole: malformed {whole.Malformed}; in pieces of {pieceSize}: {cut.Malformed}");
        Invariant.Check(whole.Sections.SequenceEqual(cut.Sections), "whole and in pieces, the sections are the same");
    }

    private static List<ReadOnlyMemory<byte>> Pieces(byte[] body, int size)
    {
        var pieces = new List<ReadOnlyMemory<byte>>();
        for (var i = 0; i < body.Length; i += size)
        {
            pieces.Add(body.AsMemory(i, Math.Min(size, body.Length - i)));
        }

        return pieces;
    }

    private static Outcome Parse(byte[] body, IReadOnlyList<ReadOnlyMemory<byte>> pieces, string boundary, ConsumeMode mode)
    {
        var sections = new List<string>();
        var pipe = new SegmentedPipeReader(pieces);
        var reader = new MultipartPipeReader(pipe, boundary, s_limits);
        var delimiter = Encoding.ASCII.GetBytes("\r\n--" + boundary);
        try
        {
            // SegmentedPipeReader completes every read synchronously, so these never wait.
            MultipartSection? section;
            while ((section = Sync(reader.ReadNextSectionAsync())) is not null)
            {
                Invariant.Check(sections.Count < s_limits.MaxSections, "at most MaxSections sections");
                CheckHeaders(section);
                var index = sections.Count;
                var signature = new StringBuilder();
                foreach (var (name, value) in section.Headers)
                {
                    signature.Append(name).Append(':').Append(value).Append('\n');
                }

                signature.Append(section.Name).Append('|').Append(section.FileName).Append('|').Append(section.ContentType).Append('\n');
                if (mode.SkipOddSections && index % 2 == 1)
                {
                    signature.Append("(skipped)");
                }
                else if (mode.FieldsAsString && section.FileName is null)
                {
                    var value = Sync(reader.ReadSectionAsStringAsync(MaxFieldBytes));
                    Invariant.Check(Encoding.UTF8.GetByteCount(value) <= MaxFieldBytes * 3, "a field read as a string stays within its limit");
                    signature.Append(value);
                }
                else
                {
                    var data = ReadData(reader);
                    Invariant.Check(data.AsSpan().IndexOf(delimiter) < 0, "section data never contains the delimiter");
                    signature.Append(Convert.ToHexString(data));
                }

                sections.Add(signature.ToString());
            }

            Invariant.Check(!pipe.IsReading, "the reader does not leave the pipe mid-read");
            Invariant.Check(body.AsSpan().IndexOf(delimiter.AsSpan(2)) >= 0 || sections.Count == 0, "sections only from a body holding the boundary");
            return new Outcome(false, sections);
        }
        catch (MultipartFormatException)
        {
            // Refused: sections handed out before the refusal still have to agree between the two parses.
            return new Outcome(true, sections);
        }
    }

    private static byte[] ReadData(MultipartPipeReader reader)
    {
        var data = new ArrayBufferWriter<byte>();
        while (true)
        {
            var chunk = Sync(reader.ReadSectionDataAsync());
            Invariant.Check(chunk.IsCompleted || !chunk.Data.IsEmpty, "only the last chunk of a section may be empty");
            foreach (var segment in chunk.Data)
            {
                data.Write(segment.Span);
            }

            if (chunk.IsCompleted)
            {
                return data.WrittenSpan.ToArray();
            }
        }
    }

    private static void CheckHeaders(MultipartSection section)
    {
        Invariant.Check(section.Headers.Count <= s_limits.MaxHeaderCount, "at most MaxHeaderCount headers");
        foreach (var (name, value) in section.Headers)
        {
            Invariant.Check(name.Length > 0 && name.All(c => c > ' ' && c < 0x7F && !"\"(),/:;<=>?@[\\]{}".Contains(c)), $"header name '{name}' is a token");
            Invariant.Check(!value.Any(c => c is '\r' or '\n' or '\0'), "a header value holds no CR, LF or NUL");
        }
    }

    private static T Sync<T>(ValueTask<T> pending)
    {
        Invariant.Check(pending.IsCompleted, "a read over a synchronous pipe completes synchronously");
        return pending.Result;
    }

    private readonly record struct ConsumeMode(bool FieldsAsString, bool SkipOddSections);

    private sealed record Outcome(bool Malformed, List<string> Sections);
}
