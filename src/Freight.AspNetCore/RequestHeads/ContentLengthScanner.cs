using System.Buffers;
using System.Text;

namespace Freight.AspNetCore.RequestHeads;

/// <summary>
/// Remembers the raw value of the last <c>Content-Length</c> field line in the bytes it is shown, as sent: Kestrel keeps
/// only the number it parsed, and its parser takes a sign (<c>+5</c>, <c>-0</c>), which RFC 9110 §8.6 does not
/// (<c>Content-Length = 1*DIGIT</c>). A byte-at-a-time match from each line feed, shown only what Kestrel consumes
/// outside the application's body reads: request heads, and the unread rest of a body drained after a response (by
/// Kestrel, or by routing's refusal of a path, answered after <see cref="ContentLengthMiddleware"/>). A value in such a
/// rest is harmless: the next head's own Content-Length line comes later and replaces it.
/// </summary>
internal sealed class ContentLengthScanner
{
    // A field line starts after a line feed; field names are case-insensitive (RFC 9110 §5.1).
    private static ReadOnlySpan<byte> FieldStart => "\ncontent-length:"u8;

    // Longer than any length Kestrel accepts (19 digits) plus whitespace; a longer value is kept as too long.
    private const int MaxValueBytes = 64;

    private readonly byte[] _value = new byte[MaxValueBytes];
    private int _matched = 1; // the connection's first line starts like one after a line feed
    private int _valueLength = -1; // -1: not inside a value
    private bool _valueTooLong;

    /// <summary>Whether the connection's bytes are being shown (between requests and in request heads; not bodies the application reads).</summary>
    public bool Scanning { get; set; } = true;

    /// <summary>The last value seen (whitespace around it trimmed), or null.</summary>
    public string? LastValue { get; private set; }

    /// <summary>The last value seen since the previous call, and forgets it.</summary>
    public string? TakeLastValue()
    {
        var value = LastValue;
        LastValue = null;
        return value;
    }

    public void Scan(ReadOnlySequence<byte> bytes)
    {
        foreach (var segment in bytes)
        {
            var span = segment.Span;
            while (!span.IsEmpty)
            {
                if (_matched == 0 && _valueLength < 0)
                {
                    // Outside a field name and value only a line feed starts one: skipped to, so that the rest of a
                    // body drained after its answer goes by at memory speed, not a step a byte (16 MB/s).
                    var lineFeed = span.IndexOf((byte)'\n');
                    if (lineFeed < 0)
                    {
                        break;
                    }

                    span = span[lineFeed..];
                }

                Step(span[0]);
                span = span[1..];
            }
        }
    }

    private void Step(byte b)
    {
        if (_valueLength >= 0)
        {
            if (b is (byte)'\r' or (byte)'\n')
            {
                // A value too long to keep is not a length Kestrel accepts either; its start and an ellipsis say so.
                LastValue = Encoding.Latin1.GetString(_value, 0, _valueLength).Trim(' ', '\t') + (_valueTooLong ? "…" : "");
                _valueLength = -1;
                _matched = b == '\n' ? 1 : 0;
            }
            else if (_valueLength == 0 && b is (byte)' ' or (byte)'\t')
            {
                // Whitespace before the value (RFC 9110 §5.5) is not part of it.
            }
            else if (_valueLength < MaxValueBytes)
            {
                _value[_valueLength++] = b;
            }
            else
            {
                _valueTooLong = true;
            }

            return;
        }

        var lower = b is >= (byte)'A' and <= (byte)'Z' ? (byte)(b | 0x20) : b;
        if (lower == FieldStart[_matched])
        {
            if (++_matched == FieldStart.Length)
            {
                _valueLength = 0;
                _valueTooLong = false;
            }
        }
        else
        {
            _matched = b == '\n' ? 1 : 0;
        }
    }
}
