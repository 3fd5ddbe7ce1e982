using System.Diagnostics.CodeAnalysis;
using Microsoft.Extensions.Primitives;

namespace Freight.Digests;

/// <summary>
/// Just enough of an RFC 8941 (Structured Field Values) parser to read the Dictionaries of RFC 9530: member
/// keys, Byte Sequence and Integer values, and parameters, which are checked for syntax and skipped.
/// Every method returns false on a syntax error; RFC 8941 §4.2 then has the whole field ignored.
/// </summary>
/// <remarks>Headers are parsed once per request, so clarity wins over allocation here (a key is a string).</remarks>
internal ref struct StructuredFieldReader
{
    private static readonly char[] Whitespace = [' ', '\t'];

    private readonly ReadOnlySpan<char> _input;
    private int _position;

    private StructuredFieldReader(ReadOnlySpan<char> input)
    {
        _input = input;
        _position = 0;
    }

    /// <summary>True once every member has been read.</summary>
    public readonly bool IsAtEnd => _position == _input.Length;

    /// <summary>
    /// Combines the field lines into one value as RFC 8941 §4.2 says (joined by ", "). Lines holding only
    /// whitespace are dropped: RFC 9110 §5.3 lets a recipient ignore empty list elements.
    /// </summary>
    public static string Combine(StringValues fieldLines)
    {
        if (fieldLines.Count == 1)
        {
            return fieldLines[0]?.Trim(Whitespace) ?? string.Empty;
        }

        var parts = new List<string>(fieldLines.Count);
        foreach (var line in fieldLines)
        {
            var trimmed = line?.Trim(Whitespace);
            if (!string.IsNullOrEmpty(trimmed))
            {
                parts.Add(trimmed);
            }
        }

        return string.Join(", ", parts);
    }

    /// <summary>Starts reading a Dictionary; leading spaces are discarded (RFC 8941 §4.2 step 2).</summary>
    public static StructuredFieldReader Create(ReadOnlySpan<char> input)
    {
        var reader = new StructuredFieldReader(input);
        reader.SkipSpaces();
        return reader;
    }

    /// <summary>Reads a member key (RFC 8941 §4.2.3.3): lcalpha or "*" first, then lcalpha, DIGIT, "_", "-", ".", "*".</summary>
    public bool TryReadKey([NotNullWhen(true)] out string? key)
    {
        key = null;
        var start = _position;
        if (_position >= _input.Length || !(IsLowerAlpha(_input[_position]) || _input[_position] == '*'))
        {
            return false;
        }

        _position++;
        while (_position < _input.Length && IsKeyChar(_input[_position]))
        {
            _position++;
        }

        key = _input[start.._position].ToString();
        return true;
    }

    /// <summary>Consumes <paramref name="expected"/> if it is the next character.</summary>
    public bool TryConsume(char expected)
    {
        if (_position < _input.Length && _input[_position] == expected)
        {
            _position++;
            return true;
        }

        return false;
    }

    /// <summary>
    /// Reads a Byte Sequence <c>:base64:</c> (RFC 8941 §4.2.7). Missing "=" padding is accepted, as §4.2.7
    /// recommends; any character outside the base64 alphabet (whitespace included) is an error.
    /// </summary>
    public bool TryReadByteSequence([NotNullWhen(true)] out byte[]? bytes)
    {
        bytes = null;
        if (!TryConsume(':'))
        {
            return false;
        }

        var start = _position;
        while (_position < _input.Length && _input[_position] != ':')
        {
            if (!IsBase64Char(_input[_position]))
            {
                return false;
            }

            _position++;
        }

        if (_position == _input.Length)
        {
            return false;
        }

        var text = _input[start.._position];
        _position++;
        return TryDecodeBase64(text, out bytes);
    }

    /// <summary>Reads an Integer (RFC 8941 §4.2.4): an optional "-" and 1 to 15 digits; a Decimal is an error here.</summary>
    public bool TryReadInteger(out long value)
    {
        value = 0;
        var negative = TryConsume('-');
        var digits = 0;
        while (_position < _input.Length && char.IsAsciiDigit(_input[_position]))
        {
            if (++digits > 15)
            {
                return false;
            }

            value = (value * 10) + (_input[_position] - '0');
            _position++;
        }

        if (digits == 0 || (_position < _input.Length && _input[_position] == '.'))
        {
            return false;
        }

        value = negative ? -value : value;
        return true;
    }

    /// <summary>Checks and skips the parameters after an item (RFC 8941 §4.2.3.2): <c>*( ";" *SP key [ "=" bare-item ] )</c>.</summary>
    public bool TrySkipParameters()
    {
        while (TryConsume(';'))
        {
            SkipSpaces();
            if (!TryReadKey(out _))
            {
                return false;
            }

            if (TryConsume('=') && !TrySkipBareItem())
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>
    /// Moves past the separator after a Dictionary member (RFC 8941 §4.2.2): OWS, then either the end of the
    /// field or "," OWS followed by another member. A trailing comma is an error.
    /// </summary>
    public bool TrySkipMemberSeparator()
    {
        SkipWhitespace();
        if (IsAtEnd)
        {
            return true;
        }

        if (!TryConsume(','))
        {
            return false;
        }

        SkipWhitespace();
        return !IsAtEnd;
    }

    private bool TrySkipBareItem()
    {
        if (_position >= _input.Length)
        {
            return false;
        }

        var c = _input[_position];
        if (c == '-' || char.IsAsciiDigit(c))
        {
            return TrySkipNumber();
        }

        switch (c)
        {
            case '"':
                _position++;
                return TrySkipStringBody();
            case ':':
                return TryReadByteSequence(out _);
            case '?':
                _position++;
                return TryConsume('0') || TryConsume('1');
            case '@':
                // A Date (RFC 9651 §3.3.7) is "@" and an Integer.
                _position++;
                return TryReadInteger(out _);
            case '%':
                // A Display String (RFC 9651 §3.3.8): %"..." with lowercase %xx escapes.
                _position++;
                return TryConsume('"') && TrySkipDisplayStringBody();
            default:
                return TrySkipToken();
        }
    }

    private bool TrySkipNumber()
    {
        TryConsume('-');
        var integerDigits = CountDigits();
        if (integerDigits == 0)
        {
            return false;
        }

        if (!TryConsume('.'))
        {
            return integerDigits <= 15;
        }

        // Decimal (RFC 8941 §3.3.2): at most 12 integer and 3 fractional digits.
        var fractionDigits = CountDigits();
        return integerDigits <= 12 && fractionDigits is >= 1 and <= 3;
    }

    private int CountDigits()
    {
        var start = _position;
        while (_position < _input.Length && char.IsAsciiDigit(_input[_position]))
        {
            _position++;
        }

        return _position - start;
    }

    private bool TrySkipStringBody()
    {
        // RFC 8941 §4.2.5: printable ASCII; only \" and \\ are escapes.
        while (_position < _input.Length)
        {
            var c = _input[_position++];
            if (c == '"')
            {
                return true;
            }

            if (c == '\\')
            {
                if (_position >= _input.Length || (_input[_position] != '"' && _input[_position] != '\\'))
                {
                    return false;
                }

                _position++;
            }
            else if (c < 0x20 || c > 0x7E)
            {
                return false;
            }
        }

        return false;
    }

    private bool TrySkipDisplayStringBody()
    {
        while (_position < _input.Length)
        {
            var c = _input[_position++];
            if (c == '"')
            {
                return true;
            }

            if (c == '%')
            {
                if (_position + 2 > _input.Length || !IsLowerHex(_input[_position]) || !IsLowerHex(_input[_position + 1]))
                {
                    return false;
                }

                _position += 2;
            }
            else if (c < 0x20 || c > 0x7E)
            {
                return false;
            }
        }

        return false;
    }

    private bool TrySkipToken()
    {
        // RFC 8941 §4.2.6: ALPHA or "*", then tchar, ":" or "/".
        var c = _input[_position];
        if (!char.IsAsciiLetter(c) && c != '*')
        {
            return false;
        }

        _position++;
        while (_position < _input.Length && IsTokenChar(_input[_position]))
        {
            _position++;
        }

        return true;
    }

    private void SkipSpaces()
    {
        while (_position < _input.Length && _input[_position] == ' ')
        {
            _position++;
        }
    }

    private void SkipWhitespace()
    {
        while (_position < _input.Length && (_input[_position] == ' ' || _input[_position] == '\t'))
        {
            _position++;
        }
    }

    private static bool TryDecodeBase64(ReadOnlySpan<char> text, [NotNullWhen(true)] out byte[]? bytes)
    {
        bytes = null;
        var remainder = text.Length % 4;
        if (remainder == 1)
        {
            return false;
        }

        // Restore the padding a sender may have left off, so the strict decoder can check the rest.
        var padded = remainder == 0 ? text : string.Concat(text, "==".AsSpan(0, 4 - remainder)).AsSpan();
        var padding = padded.Length == 0 ? 0 : padded[^1] != '=' ? 0 : padded[^2] == '=' ? 2 : 1;
        var buffer = new byte[(padded.Length / 4 * 3) - padding];
        if (!Convert.TryFromBase64Chars(padded, buffer, out var written) || written != buffer.Length)
        {
            return false;
        }

        bytes = buffer;
        return true;
    }

    private static bool IsLowerAlpha(char c) => c is >= 'a' and <= 'z';

    private static bool IsLowerHex(char c) => char.IsAsciiDigit(c) || c is >= 'a' and <= 'f';

    private static bool IsKeyChar(char c) => IsLowerAlpha(c) || char.IsAsciiDigit(c) || c is '_' or '-' or '.' or '*';

    private static bool IsBase64Char(char c) => char.IsAsciiLetterOrDigit(c) || c is '+' or '/' or '=';

    // tchar (RFC 9110 §5.6.2) plus ":" and "/".
    private static bool IsTokenChar(char c) =>
        char.IsAsciiLetterOrDigit(c) || c is '!' or '#' or '$' or '%' or '&' or '\'' or '*' or '+' or '-' or '.'
            or '^' or '_' or '`' or '|' or '~' or ':' or '/';
}
