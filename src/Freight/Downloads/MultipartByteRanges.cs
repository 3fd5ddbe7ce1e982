using System.Globalization;
using System.Security.Cryptography;
using System.Text;

namespace Freight.Downloads;

/// <summary>
/// The framing of a <c>multipart/byteranges</c> body (RFC 9110 §14.6, RFC 2046 §5.1.1), computed before a
/// byte is sent so the response carries a Content-Length (not chunked) and a client can show progress:
/// <code>
/// --BOUNDARY CRLF Content-Type: t CRLF Content-Range: bytes a-b/N CRLF CRLF &lt;bytes&gt;
/// CRLF --BOUNDARY CRLF ... &lt;bytes&gt;
/// CRLF --BOUNDARY-- CRLF
/// </code>
/// The CRLF before each later boundary belongs to that delimiter (RFC 2046), not to the part's bytes.
/// </summary>
internal sealed class MultipartByteRanges
{
    // 24 hex digits, 96 random bits, new per response: the parts are binary and may be a file an attacker
    // uploaded, so the boundary must be one nobody could put in a file beforehand (RFC 2046 §5.1.1: it must
    // not occur in the encapsulated data). 32 characters, within RFC 2046's 70, and a token: no quoting.
    private const int RandomBoundaryDigits = 24;

    private MultipartByteRanges(string contentType, byte[][] partHeads, byte[] close, long contentLength)
    {
        ContentType = contentType;
        PartHeads = partHeads;
        Close = close;
        ContentLength = contentLength;
    }

    /// <summary><c>multipart/byteranges; boundary=…</c>, the response's Content-Type.</summary>
    public string ContentType { get; }

    /// <summary>What precedes the bytes of each part: its delimiter, Content-Type and Content-Range, and the empty line.</summary>
    public byte[][] PartHeads { get; }

    /// <summary>The close delimiter after the last part's bytes.</summary>
    public byte[] Close { get; }

    /// <summary>The whole body's length: heads, parts and the close delimiter.</summary>
    public long ContentLength { get; }

    public static MultipartByteRanges Create(IReadOnlyList<ByteRange> ranges, string contentType, long length)
    {
        var boundary = "freight-" + RandomNumberGenerator.GetHexString(RandomBoundaryDigits, lowercase: true);
        var heads = new byte[ranges.Count][];
        long total = 0;
        for (var i = 0; i < heads.Length; i++)
        {
            var range = ranges[i];

            // §14.6: each part carries the representation's Content-Type and its own Content-Range.
            heads[i] = Encoding.Latin1.GetBytes(string.Create(
                CultureInfo.InvariantCulture,
                $"{(i == 0 ? "" : "\r\n")}--{boundary}\r\nContent-Type: {contentType}\r\nContent-Range: bytes {range.First}-{range.Last}/{length}\r\n\r\n"));
            total += heads[i].Length + range.Length;
        }

        var close = Encoding.Latin1.GetBytes($"\r\n--{boundary}--\r\n");
        total += close.Length;
        return new MultipartByteRanges("multipart/byteranges; boundary=" + boundary, heads, close, total);
    }
}
