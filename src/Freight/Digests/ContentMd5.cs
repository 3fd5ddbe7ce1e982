using System.Diagnostics.CodeAnalysis;

namespace Freight.Digests;

/// <summary>
/// The legacy <c>Content-MD5</c> field (RFC 1864): the base64 (RFC 1521, padded) of the 16-byte MD5 of the
/// content. RFC 9110 no longer defines it, but clients such as S3 tools still send it, so Freight verifies it.
/// </summary>
public static class ContentMd5
{
    /// <summary><c>Content-MD5</c> (RFC 1864).</summary>
    public const string HeaderName = "Content-MD5";

    // 16 bytes encode to 22 base64 characters and "==".
    private const int EncodedLength = 24;

    /// <summary>
    /// Parses a <c>Content-MD5</c> value. Surrounding whitespace is ignored; anything but exactly 24 base64
    /// characters ending in "==" — inner whitespace, a missing pad, the URL-safe alphabet, several values
    /// joined by a comma — gives false.
    /// </summary>
    public static bool TryParse(string? value, [NotNullWhen(true)] out byte[]? digest)
    {
        digest = null;
        var text = value.AsSpan().Trim(" \t");
        if (text.Length != EncodedLength || !text.EndsWith("=="))
        {
            return false;
        }

        foreach (var c in text)
        {
            // Convert would skip whitespace inside the value; the RFC 1864 value has none.
            if (!char.IsAsciiLetterOrDigit(c) && c is not ('+' or '/' or '='))
            {
                return false;
            }
        }

        var bytes = new byte[DigestAlgorithm.Md5.HashLength];
        if (!Convert.TryFromBase64Chars(text, bytes, out var written) || written != bytes.Length)
        {
            return false;
        }

        digest = bytes;
        return true;
    }

    /// <summary>Formats a 16-byte MD5 digest as a <c>Content-MD5</c> value.</summary>
    public static string Format(ReadOnlySpan<byte> digest)
    {
        if (digest.Length != DigestAlgorithm.Md5.HashLength)
        {
            throw new ArgumentException($"An MD5 digest is {DigestAlgorithm.Md5.HashLength} bytes, not {digest.Length}.", nameof(digest));
        }

        return Convert.ToBase64String(digest);
    }
}
