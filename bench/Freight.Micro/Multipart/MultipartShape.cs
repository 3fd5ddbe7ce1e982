namespace Freight.Micro.Multipart;

/// <summary>The bodies the multipart parsers are measured on: one normal, six hostile, all <see cref="MultipartBodyInput.BodyBytes"/> long.</summary>
public enum MultipartShape
{
    /// <summary>Normal: four file parts of ~5 MiB of pseudo-random bytes each.</summary>
    LargeParts,

    /// <summary>One part whose data is CRLF after CRLF: every other byte is the delimiter's first byte.</summary>
    CrlfFlood,

    /// <summary>
    /// One part whose data is <c>"\r\n--" + boundary</c> less its last byte, over and over: a delimiter prefix
    /// everywhere ("\r\n--boundar"), none complete.
    /// </summary>
    NearBoundary,

    /// <summary>
    /// One part whose data is the delimiter with its next-to-last byte changed, over and over: same first and last
    /// byte and length as the delimiter, so a search that anchors on those two bytes (.NET's vectorized
    /// <c>IndexOf(span)</c> does) finds a candidate in every copy and must compare it in full.
    /// </summary>
    Lookalikes,

    /// <summary>
    /// One part in which as many positions as can be are such candidates: a CR every p bytes and the delimiter's
    /// last byte p·k + (delimiter length − 1) bytes on, for the smallest period p that allows it (2 for this
    /// boundary: "\r9\r9…"). Every candidate fails at its second byte, but there is one every p bytes.
    /// </summary>
    DenseLookalikes,

    /// <summary>
    /// The same for Freight's own search, which needs CR LF "--" at a candidate's start and the delimiter's last byte
    /// at its end: the delimiter's first p bytes with its last byte put at (delimiter length − 1) mod p, for the
    /// smallest period p that allows it (9 for this boundary: "\r\n-----9F"). Every candidate passes the five
    /// anchors and fails in the compare of the rest.
    /// </summary>
    AnchoredLookalikes,

    /// <summary><see cref="MultipartBodyInput.TinyPartCount"/> form fields of ~2 KiB: per-section work (headers, state) 10,000 times.</summary>
    TinyParts,
}
