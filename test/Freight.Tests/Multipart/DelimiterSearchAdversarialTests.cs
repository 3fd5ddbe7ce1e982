using System.Buffers;
using System.Text;
using CsCheck;
using Freight.Multipart;

namespace Freight.Tests.Multipart;

/// <summary>
/// Bodies written against the search's anchors (a candidate every few bytes that fails only on a full compare),
/// long enough for the 32-byte vector loop, with real delimiters among them: every delimiter is found at its offset.
/// </summary>
public sealed class DelimiterSearchAdversarialTests
{
    // The micro suite's boundary: its delimiter is 44 bytes and ends in '9'.
    private static readonly byte[] s_benchDelimiter = Encoding.ASCII.GetBytes("\r\n--" + "----FreightMicroBoundary7MA4YWxkTrZu0gW9");

    private static readonly Gen<string> s_boundary = Gen.String[Gen.Char["0123456789abcXYZ'()+_,-./:=? "], 1, MultipartBoundary.MaxLength]
        .Where(boundary => boundary[^1] != ' ');

    private enum Filler
    {
        TwoAnchorDense,
        FiveAnchorDense,
        Lookalike,
        PrefixOnly,
        Crlf,
        Random,
        Delimiter,
    }

    [Fact]
    public void IndexOf_TwoAnchorDenseBody_FindsEachDelimiterAtItsOffset()
    {
        // "\r9" repeated: a CR every 2 bytes, each with the delimiter's last byte 43 bytes on — a candidate every 2
        // bytes for a first-and-last-byte search. Delimiters at an even and an odd offset, across vector lanes, and
        // one ending exactly at the end of the body.
        var body = new List<byte>();
        var expected = new List<int>();
        foreach (var (repeats, withDelimiter) in new[] { (1000, true), (517, true), (33, true), (2000, false), (61, true) })
        {
            for (var i = 0; i < repeats; i++)
            {
                body.AddRange("\r9"u8.ToArray());
            }

            if (withDelimiter)
            {
                if (repeats == 517)
                {
                    body.Add((byte)'x');
                }

                expected.Add(body.Count);
                body.AddRange(s_benchDelimiter);
            }
        }

        Assert.Equal(expected, FindAllInSpan(body.ToArray(), s_benchDelimiter));
        Assert.Equal(Naive(body.ToArray(), s_benchDelimiter), expected);
    }

    [Fact]
    public void IndexOf_NoDelimiterInDenseBody_ReturnsMinusOne()
    {
        var body = Encoding.ASCII.GetBytes(string.Concat(Enumerable.Repeat("\r9", 4096)));
        Assert.Equal(-1, DelimiterSearch.IndexOf(body, s_benchDelimiter));
    }

    [Fact]
    public void TryFind_BodiesBuiltAgainstTheAnchors_FindEveryDelimiterAtItsOffset()
    {
        var pieces = Gen.Select(Gen.Enum<Filler>(), Gen.Int[1, 120]).Array[1, 12];
        Gen.Select(s_boundary, pieces, Gen.Int[1, 700].Array[1, 6], Gen.Int)
            .Sample((boundary, bodyPieces, segmentSizes, seed) =>
            {
                var delimiter = Encoding.ASCII.GetBytes("\r\n--" + boundary);
                var body = Build(delimiter, bodyPieces, new Random(seed));
                var expected = Naive(body, delimiter);
                Assert.Equal(expected, FindAllInSpan(body, delimiter));
                Assert.Equal(expected, FindAllInSequence(Cut(body, segmentSizes), delimiter));
            });
    }

    private static byte[] Build(byte[] delimiter, (Filler Kind, int Repeats)[] pieces, Random random)
    {
        var body = new List<byte>();
        foreach (var (kind, repeats) in pieces)
        {
            var unit = Unit(kind, delimiter, random);
            var count = kind == Filler.Delimiter ? 1 : repeats;
            for (var i = 0; i < count; i++)
            {
                body.AddRange(unit);
            }
        }

        return body.ToArray();
    }

    private static byte[] Unit(Filler kind, byte[] delimiter, Random random)
    {
        var lastDistance = delimiter.Length - 1;
        switch (kind)
        {
            case Filler.TwoAnchorDense:
            {
                // A CR with the delimiter's last byte at its distance: the shortest period that does not divide it.
                var period = 2;
                while (lastDistance % period == 0)
                {
                    period++;
                }

                var unit = Enumerable.Repeat((byte)'x', period).ToArray();
                unit[0] = (byte)'\r';
                unit[lastDistance % period] = delimiter[^1];
                return unit;
            }

            case Filler.FiveAnchorDense:
            {
                // CR LF "--" with the last byte at its distance: the shortest period where all five anchors agree.
                for (var period = 4; ; period++)
                {
                    var unit = Enumerable.Repeat((byte)'x', period).ToArray();
                    "\r\n--"u8.CopyTo(unit);
                    var at = lastDistance % period;
                    if (at >= 4)
                    {
                        unit[at] = delimiter[^1];
                        return unit;
                    }

                    if (unit[at] == delimiter[^1])
                    {
                        return unit;
                    }
                }
            }

            case Filler.Lookalike:
            {
                // The delimiter with one boundary byte changed: every anchor matches, the full compare fails.
                var unit = (byte[])delimiter.Clone();
                if (unit.Length > 5)
                {
                    var at = random.Next(4, unit.Length - 1);
                    unit[at] = unit[at] == (byte)'#' ? (byte)'%' : (byte)'#';
                }

                return unit;
            }

            case Filler.PrefixOnly:
                return delimiter[..^1];
            case Filler.Crlf:
                return "\r\n"u8.ToArray();
            case Filler.Random:
            {
                var unit = new byte[random.Next(1, 64)];
                random.NextBytes(unit);
                return unit;
            }

            default:
                return delimiter;
        }
    }

    private static List<int> FindAllInSpan(byte[] body, byte[] delimiter)
    {
        var found = new List<int>();
        var from = 0;
        while (true)
        {
            var index = DelimiterSearch.IndexOf(body.AsSpan(from), delimiter);
            if (index < 0)
            {
                return found;
            }

            found.Add(from + index);
            from += index + delimiter.Length;
        }
    }

    private static List<int> FindAllInSequence(ReadOnlySequence<byte> sequence, byte[] delimiter)
    {
        var found = new List<int>();
        long consumed = 0;
        while (DelimiterSearch.TryFind(sequence, delimiter, out var matchStart, out _))
        {
            var offset = sequence.Slice(sequence.Start, matchStart).Length;
            found.Add((int)(consumed + offset));
            sequence = sequence.Slice(offset + delimiter.Length);
            consumed += offset + delimiter.Length;
        }

        return found;
    }

    private static ReadOnlySequence<byte> Cut(byte[] body, int[] segmentSizes)
    {
        var segments = new List<byte[]>();
        var start = 0;
        for (var i = 0; start < body.Length; i++)
        {
            var length = Math.Min(segmentSizes[i % segmentSizes.Length], body.Length - start);
            segments.Add(body[start..(start + length)]);
            start += length;
        }

        return MultipartHarness.CreateSequence([.. segments]);
    }

    // Reference: a byte-by-byte scan for every non-overlapping delimiter (a delimiter cannot overlap itself: its
    // only CR is its first byte).
    private static List<int> Naive(byte[] body, byte[] delimiter)
    {
        var found = new List<int>();
        for (var i = 0; i + delimiter.Length <= body.Length; i++)
        {
            var j = 0;
            while (j < delimiter.Length && body[i + j] == delimiter[j])
            {
                j++;
            }

            if (j == delimiter.Length)
            {
                found.Add(i);
                i += delimiter.Length - 1;
            }
        }

        return found;
    }
}
