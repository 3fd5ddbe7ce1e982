using System.Buffers;
using Microsoft.Extensions.Primitives;
using Microsoft.Net.Http.Headers;

namespace Freight.Multipart;

/// <summary>Extracts the boundary of a <c>multipart/*</c> Content-Type (RFC 2046 §5.1.1, RFC 7578 §4.1).</summary>
public static class MultipartBoundary
{
    /// <summary>RFC 2046 §5.1.1: a boundary is 1 to 70 characters.</summary>
    public const int MaxLength = 70;

    // RFC 2046 §5.1.1 bchars := bcharsnospace / " "; bcharsnospace := DIGIT / ALPHA / "'" / "(" / ")" / "+" / "_" / "," / "-" / "." / "/" / ":" / "=" / "?"
    private static readonly SearchValues<char> s_bcharsNoSpace =
        SearchValues.Create("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=?");

    /// <summary>
    /// Parses <paramref name="contentType"/> and returns its <c>boundary</c> parameter (quotes stripped).
    /// Returns false unless the media type is <c>multipart/*</c> (e.g. <c>multipart/form-data</c>) with exactly one
    /// <c>boundary</c> parameter of 1–70 RFC 2046 <c>bchars</c> that does not end in a space.
    /// </summary>
    public static bool TryParse(string? contentType, out string boundary)
    {
        boundary = string.Empty;
        if (string.IsNullOrEmpty(contentType) || !MediaTypeHeaderValue.TryParse(contentType, out var mediaType))
        {
            return false;
        }

        // RFC 2046 §5.1: every multipart subtype shares the same syntax; "multipart/" alone has no subtype.
        var type = mediaType.MediaType;
        if (!type.StartsWith("multipart/", StringComparison.OrdinalIgnoreCase) || type.Length <= "multipart/".Length)
        {
            return false;
        }

        // A repeated boundary parameter is ambiguous; refuse rather than guess which one the sender meant.
        StringSegment raw = default;
        foreach (var parameter in mediaType.Parameters)
        {
            if (parameter.Name.Equals("boundary", StringComparison.OrdinalIgnoreCase))
            {
                if (raw.HasValue)
                {
                    return false;
                }

                raw = parameter.Value;
            }
        }

        var value = HeaderUtilities.RemoveQuotes(raw);
        if (!IsValid(value.AsSpan()))
        {
            return false;
        }

        boundary = value.ToString();
        return true;
    }

    /// <summary>True when <paramref name="boundary"/> is 1–70 RFC 2046 <c>bchars</c> not ending in a space.</summary>
    public static bool IsValid(ReadOnlySpan<char> boundary)
    {
        if (boundary.IsEmpty || boundary.Length > MaxLength || boundary[^1] == ' ')
        {
            return false;
        }

        // Spaces are allowed inside (bchars), just not last (bcharsnospace).
        foreach (var c in boundary)
        {
            if (c != ' ' && !s_bcharsNoSpace.Contains(c))
            {
                return false;
            }
        }

        return true;
    }
}
