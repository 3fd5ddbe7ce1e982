using System.Buffers;
using System.Text;

namespace Freight.Multipart;

/// <summary>
/// Reads the plain shape of a Content-Disposition value (RFC 7578 §4.2), the one browsers send for nearly every part —
/// <c>form-data; name="field"; filename="photo.jpg"</c> — giving exactly what <c>ContentDispositionHeaderValue</c>
/// gives for it, without its allocations (a header object, a parameter list, a parameter object each, and the
/// getters' own strings). Every other value is left to <c>ContentDispositionHeaderValue</c>.
/// </summary>
/// <remarks>
/// The parsing cost of a part is paid once per section: with <c>ContentDispositionHeaderValue</c> alone the micro
/// suite's body of 10,000 tiny form fields cost ~0.9 µs and ~806 allocated bytes a section, 12.8× the time of a
/// normal body of the same size (docs/results/2026-11-25-micro-tiny.md).
/// </remarks>
internal static class PlainContentDisposition
{
    /// <summary>The disposition type of every form part: handed out as this one string, not a new copy a section.</summary>
    public const string FormData = "form-data";

    // RFC 9110 §5.6.2 tchar, which is what ContentDispositionHeaderValue's parser accepts as a token.
    private static readonly SearchValues<char> s_tchar =
        SearchValues.Create("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");

    /// <summary>
    /// Returns true and the disposition type, the <c>name</c> and the <c>filename</c> parameters (quotes removed; null
    /// when absent) when <paramref name="value"/> is plain: ASCII, a token type, and parameters of the form
    /// token "=" (token / quoted-string) with no backslash in a quoted string, no name ending in "*" (RFC 5987
    /// ext-value) and no quoted value starting "=?" (RFC 2047 encoded-word), separated by ";". Returns false for
    /// anything else, valid or not: the caller then parses it with <c>ContentDispositionHeaderValue</c>.
    /// </summary>
    public static bool TryParse(string value, out string dispositionType, out string? name, out string? fileName)
    {
        dispositionType = null!;
        name = null;
        fileName = null;
        var span = value.AsSpan();

        // Non-ASCII (raw UTF-8 file names) takes the full parser, whose rules for those characters are its own.
        if (!Ascii.IsValid(span))
        {
            return false;
        }

        var typeLength = TokenLength(span);
        if (typeLength == 0)
        {
            return false;
        }

        var nameStart = -1;
        var nameLength = 0;
        var fileNameStart = -1;
        var fileNameLength = 0;
        var at = SkipWhitespace(span, typeLength);
        if (at < span.Length)
        {
            if (span[at] != ';')
            {
                return false;
            }

            at = SkipWhitespace(span, at + 1);

            // Like ContentDispositionHeaderValue: parameters separated by ";", a trailing ";" allowed.
            while (at < span.Length)
            {
                var parameterLength = TokenLength(span[at..]);
                if (parameterLength == 0)
                {
                    return false;
                }

                var parameter = span.Slice(at, parameterLength);
                at = SkipWhitespace(span, at + parameterLength);
                if (at == span.Length || span[at] != '=' || parameter[^1] == '*')
                {
                    // A bare parameter (its getter throws) or an RFC 5987 one: the full parser's business.
                    return false;
                }

                at = SkipWhitespace(span, at + 1);
                int valueStart;
                int valueLength;
                if (at < span.Length && span[at] == '"')
                {
                    valueStart = at + 1;
                    valueLength = span[valueStart..].IndexOfAny('"', '\\');
                    if (valueLength < 0 || span[valueStart + valueLength] != '"' || span[valueStart..].StartsWith("=?"))
                    {
                        return false;
                    }

                    at = valueStart + valueLength + 1;
                }
                else
                {
                    valueStart = at;
                    valueLength = TokenLength(span[at..]);
                    if (valueLength == 0)
                    {
                        return false;
                    }

                    at += valueLength;
                }

                // The first parameter of a name wins, as NameValueHeaderValue.Find has it.
                if (nameStart < 0 && parameter.Equals("name", StringComparison.OrdinalIgnoreCase))
                {
                    nameStart = valueStart;
                    nameLength = valueLength;
                }
                else if (fileNameStart < 0 && parameter.Equals("filename", StringComparison.OrdinalIgnoreCase))
                {
                    fileNameStart = valueStart;
                    fileNameLength = valueLength;
                }

                at = SkipWhitespace(span, at);
                if (at == span.Length)
                {
                    break;
                }

                if (span[at] != ';')
                {
                    return false;
                }

                at = SkipWhitespace(span, at + 1);
            }
        }

        var type = span[..typeLength];
        dispositionType = type.SequenceEqual(FormData) ? FormData : type.ToString();
        name = nameStart < 0 ? null : value.Substring(nameStart, nameLength);
        fileName = fileNameStart < 0 ? null : value.Substring(fileNameStart, fileNameLength);
        return true;
    }

    private static int TokenLength(ReadOnlySpan<char> span)
    {
        var end = span.IndexOfAnyExcept(s_tchar);
        return end < 0 ? span.Length : end;
    }

    private static int SkipWhitespace(ReadOnlySpan<char> span, int at)
    {
        while (at < span.Length && span[at] is ' ' or '\t')
        {
            at++;
        }

        return at;
    }
}
