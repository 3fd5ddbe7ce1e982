using System.Buffers;
using System.Text;
using Microsoft.Net.Http.Headers;

namespace Freight.Multipart;

/// <summary>Parses the header block of one multipart section (RFC 2046 §5.1.1 MIME-part-headers, RFC 7578 §4).</summary>
internal static class MultipartHeaderParser
{
    // RFC 9110 §5.6.2 tchar: the only bytes allowed in a field name.
    private static readonly SearchValues<byte> s_tchar =
        SearchValues.Create("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"u8);

    // RFC 9110 §5.5: a field value holds no control characters except HTAB (so no bare CR, LF or NUL).
    private static readonly SearchValues<byte> s_controls = SearchValues.Create(
        [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F,
         0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F, 0x7F]);

    /// <summary>
    /// Parses complete header lines from <paramref name="buffer"/> into <paramref name="headers"/>. Returns true once
    /// the empty line ending the block is consumed; false when more data is needed. <paramref name="consumed"/> is the
    /// end of the last complete line. Throws <see cref="MultipartFormatException"/> on a bad line or a limit.
    /// </summary>
    public static bool TryParse(
        in ReadOnlySequence<byte> buffer,
        List<KeyValuePair<string, string>> headers,
        ref int headerBytes,
        MultipartLimits limits,
        out SequencePosition consumed)
    {
        var reader = new SequenceReader<byte>(buffer);
        while (true)
        {
            consumed = reader.Position;
            if (!reader.TryReadTo(out ReadOnlySequence<byte> line, (byte)'\n'))
            {
                if (headerBytes + reader.Remaining > limits.MaxHeadersBytes)
                {
                    throw TooLarge(limits);
                }

                return false;
            }

            // Every line counts toward the limit, terminator included.
            if (headerBytes + line.Length + 1 > limits.MaxHeadersBytes)
            {
                throw TooLarge(limits);
            }

            headerBytes += (int)line.Length + 1;

            // RFC 2046 §5.1.1 / RFC 5322 §2.2: header lines end in CRLF; a bare LF is malformed.
            if (line.IsEmpty || !EndsWithCr(line))
            {
                throw new MultipartFormatException("A multipart section header line does not end in CRLF.");
            }

            line = line.Slice(0, line.Length - 1);
            if (line.IsEmpty)
            {
                consumed = reader.Position;
                return true;
            }

            if (headers.Count >= limits.MaxHeaderCount)
            {
                throw new MultipartFormatException(
                    $"A multipart section has more than {limits.MaxHeaderCount} headers.");
            }

            if (line.IsSingleSegment)
            {
                headers.Add(ParseLine(line.FirstSpan));
            }
            else
            {
                // A line split across pipe segments (rare): parse a pooled contiguous copy.
                var rented = ArrayPool<byte>.Shared.Rent((int)line.Length);
                try
                {
                    line.CopyTo(rented);
                    headers.Add(ParseLine(rented.AsSpan(0, (int)line.Length)));
                }
                finally
                {
                    ArrayPool<byte>.Shared.Return(rented);
                }
            }
        }
    }

    /// <summary>
    /// Builds the section, parsing Content-Disposition (RFC 7578 §4.2) and Content-Type (§4.4). The plain dispositions
    /// browsers send are read by <see cref="PlainContentDisposition"/>; any other by <c>ContentDispositionHeaderValue</c>.
    /// </summary>
    public static MultipartSection CreateSection(List<KeyValuePair<string, string>> headers)
    {
        string? contentDisposition = null;
        string? contentType = null;
        foreach (var header in headers)
        {
            if (string.Equals(header.Key, HeaderNames.ContentDisposition, StringComparison.OrdinalIgnoreCase))
            {
                // Two dispositions would let two parsers disagree about the field name; refuse.
                contentDisposition = contentDisposition is null
                    ? header.Value
                    : throw new MultipartFormatException("A multipart section has more than one Content-Disposition header.");
            }
            else if (string.Equals(header.Key, HeaderNames.ContentType, StringComparison.OrdinalIgnoreCase))
            {
                contentType = contentType is null
                    ? header.Value
                    : throw new MultipartFormatException("A multipart section has more than one Content-Type header.");
            }
        }

        string? dispositionType = null;
        string? name = null;
        string? fileName = null;
        if (contentDisposition is not null
            && !PlainContentDisposition.TryParse(contentDisposition, out dispositionType, out name, out fileName))
        {
            if (!ContentDispositionHeaderValue.TryParse(contentDisposition, out var disposition))
            {
                throw new MultipartFormatException("A multipart section has an invalid Content-Disposition header.");
            }

            dispositionType = disposition.DispositionType.Value;

            // The getters strip quotes and decode RFC 2047 (filename) / RFC 5987 (filename*) encodings;
            // filename* wins when decodable (RFC 6266 §4.3), as in ASP.NET Core's FormFeature.
            // They can throw on odd input (e.g. ArgumentNullException for a bare "filename*" parameter, and
            // NotSupportedException for "filename*=UTF-7''…": .NET refuses UTF-7 — found by the fuzzer), which must
            // still surface as malformed input.
            try
            {
                var nameValue = disposition.Name;
                name = nameValue.HasValue ? nameValue.Value : null;
                var fileNameStar = disposition.FileNameStar;
                var plainFileName = disposition.FileName;
                fileName = fileNameStar.HasValue ? fileNameStar.Value
                    : plainFileName.HasValue ? plainFileName.Value
                    : null;
            }
            catch (Exception ex) when (ex is ArgumentException or FormatException or NotSupportedException)
            {
                throw new MultipartFormatException("A multipart section has an invalid Content-Disposition header.", ex);
            }
        }

        return new MultipartSection(headers.ToArray(), contentDisposition, dispositionType, name, fileName, contentType);
    }

    private static KeyValuePair<string, string> ParseLine(ReadOnlySpan<byte> line)
    {
        // RFC 5322 §2.2: field-name ":" field-body. A leading space/tab would be obsolete line folding, which the
        // tchar check rejects (as RFC 9110 §5.2 lets a recipient do), together with whitespace before the colon.
        var colon = line.IndexOf((byte)':');
        if (colon <= 0)
        {
            throw new MultipartFormatException("A multipart section header line has no field name.");
        }

        var name = line[..colon];
        if (name.ContainsAnyExcept(s_tchar))
        {
            throw new MultipartFormatException("A multipart section header has an invalid field name.");
        }

        var value = line[(colon + 1)..].Trim(" \t"u8);
        if (value.ContainsAny(s_controls))
        {
            throw new MultipartFormatException("A multipart section header value contains a control character.");
        }

        // Names are ASCII (tchar). Values are decoded as UTF-8: browsers send raw UTF-8 file names (RFC 7578 §5.1);
        // invalid sequences become U+FFFD rather than failing.
        return new KeyValuePair<string, string>(FieldName(name), Encoding.UTF8.GetString(value));
    }

    /// <summary>The two names nearly every part has, spelled as browsers send them, are shared strings, not new ones a section.</summary>
    private static string FieldName(ReadOnlySpan<byte> name) =>
        name.SequenceEqual("Content-Disposition"u8) ? HeaderNames.ContentDisposition
        : name.SequenceEqual("Content-Type"u8) ? HeaderNames.ContentType
        : Encoding.ASCII.GetString(name);

    private static bool EndsWithCr(in ReadOnlySequence<byte> line)
    {
        if (line.IsSingleSegment)
        {
            return line.FirstSpan[^1] == (byte)'\r';
        }

        // CopyTo rather than FirstSpan: a slice can begin at the very end of a segment (empty first span).
        Span<byte> last = stackalloc byte[1];
        line.Slice(line.Length - 1).CopyTo(last);
        return last[0] == (byte)'\r';
    }

    private static MultipartFormatException TooLarge(MultipartLimits limits) =>
        new($"A multipart section's headers exceed {limits.MaxHeadersBytes} bytes.");
}
