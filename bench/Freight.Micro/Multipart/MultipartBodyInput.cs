using System.Text;

namespace Freight.Micro.Multipart;

/// <summary>One multipart body to parse (<see cref="MultipartShape"/>); <see cref="Build"/> makes its bytes, exactly <see cref="BodyBytes"/> long.</summary>
public sealed class MultipartBodyInput : MicroInput
{
    /// <summary>20 MiB: study 1's payload, and the size of issue 19's parser goal.</summary>
    public const int BodyBytes = 20 * 1024 * 1024;

    /// <summary>The sections of the tiny-parts body (issue 19: "10,000 tiny parts").</summary>
    public const int TinyPartCount = 10_000;

    /// <summary>A browser-like boundary (40 bytes): the delimiter the parsers search for is "\r\n--" and these.</summary>
    public const string Boundary = "----FreightMicroBoundary7MA4YWxkTrZu0gW9";

    private const int LargePartCount = 4;

    private MultipartBodyInput(MultipartShape shape, string name, string label)
        : base(name, label)
    {
        Shape = shape;
    }

    /// <summary>The normal body first: the hostile ones are compared with it.</summary>
    public static IReadOnlyList<MultipartBodyInput> All { get; } =
    [
        new(MultipartShape.LargeParts, "large-parts", "20 MiB: 4 file parts of ~5 MiB, pseudo-random bytes"),
        new(MultipartShape.CrlfFlood, "crlf-flood", "20 MiB: 1 part of CRLF × ~10.5 M"),
        new(MultipartShape.NearBoundary, "near-boundary", "20 MiB: 1 part of \"\\r\\n--\" + boundary less its last byte, repeated"),
        new(MultipartShape.Lookalikes, "lookalikes", "20 MiB: 1 part of the delimiter with its next-to-last byte changed, repeated"),
        new(MultipartShape.DenseLookalikes, "dense-lookalikes", "20 MiB: 1 part of \"\\r9\" repeated: a search candidate every 2 bytes"),
        new(MultipartShape.AnchoredLookalikes, "anchored-lookalikes", "20 MiB: 1 part of \"\\r\\n-----9F\" repeated: a candidate of Freight's search every 9 bytes"),
        new(MultipartShape.TinyParts, "tiny-parts", "20 MiB: 10,000 form fields of ~2 KiB"),
    ];

    public static MultipartBodyInput Normal => All[0];

    public MultipartShape Shape { get; }

    public override long BytesPerOperation => BodyBytes;

    /// <summary>
    /// The largest number of sections any body here has: the parsers' section limit when measuring (Freight's default
    /// of 128 would refuse the tiny-parts body, as a deployment that keeps it would).
    /// </summary>
    public static int MaxSections => TinyPartCount;

    public MultipartBody Build()
    {
        var delimiterLessLast = "\r\n--" + Boundary[..^1];
        var lookalike = "\r\n--" + Boundary[..^2] + "#" + Boundary[^1];
        return Shape switch
        {
            MultipartShape.LargeParts => Build(LargePartCount, i => FileHeaders($"file{i}", $"large-{i}.bin"), PseudoRandom),
            MultipartShape.CrlfFlood => Build(1, _ => FileHeaders("file", "crlf.bin"), data => Repeat(data, "\r\n")),
            MultipartShape.NearBoundary => Build(1, _ => FileHeaders("file", "near.bin"), data => Repeat(data, delimiterLessLast)),
            MultipartShape.Lookalikes => Build(1, _ => FileHeaders("file", "lookalike.bin"), data => Repeat(data, lookalike)),
            MultipartShape.DenseLookalikes => Build(1, _ => FileHeaders("file", "dense.bin"), data => Repeat(data, DenseCandidates())),
            MultipartShape.AnchoredLookalikes => Build(1, _ => FileHeaders("file", "anchored.bin"), data => Repeat(data, AnchoredCandidates())),
            MultipartShape.TinyParts => Build(TinyPartCount, i => $"Content-Disposition: form-data; name=\"field{i}\"\r\n", PseudoRandom),
            _ => throw new InvalidOperationException($"Unknown shape {Shape}."),
        };
    }

    /// <summary>
    /// The shortest repeating unit with a CR at its start and the delimiter's last byte at the delimiter's length − 1
    /// from every CR: period p, the smallest that does not divide that distance; the other bytes are 'x'.
    /// </summary>
    private static string DenseCandidates()
    {
        var distance = "\r\n--".Length + Boundary.Length - 1;
        var period = 2;
        while (distance % period == 0)
        {
            period++;
        }

        var unit = new char[period];
        Array.Fill(unit, 'x');
        unit[0] = '\r';
        unit[distance % period] = Boundary[^1];
        return new string(unit);
    }

    /// <summary>
    /// The shortest repeating unit that starts with the delimiter's first bytes (CR LF "--" and on) and has the
    /// delimiter's last byte at the delimiter's length − 1 from every start: all five anchors of Freight's search.
    /// </summary>
    private static string AnchoredCandidates()
    {
        var delimiter = "\r\n--" + Boundary;
        var distance = delimiter.Length - 1;
        for (var period = 4; ; period++)
        {
            var unit = delimiter[..period].ToCharArray();
            var at = distance % period;
            if (at >= 4)
            {
                unit[at] = Boundary[^1];
                return new string(unit);
            }

            if (unit[at] == Boundary[^1])
            {
                return new string(unit);
            }
        }
    }

    private static string FileHeaders(string name, string fileName) =>
        $"Content-Disposition: form-data; name=\"{name}\"; filename=\"{fileName}\"\r\nContent-Type: application/octet-stream\r\n";

    /// <summary>
    /// Lays out RFC 2046 §5.1.1: "--boundary" CRLF headers CRLF data, then CRLF "--boundary" before every later part,
    /// and the close-delimiter with a CRLF epilogue. The data of <paramref name="parts"/> parts shares what the framing
    /// leaves of <see cref="BodyBytes"/>; the last part takes the remainder.
    /// </summary>
    private static MultipartBody Build(int parts, Func<int, string> headers, Action<Span<byte>> fill)
    {
        var heads = new byte[parts][];
        long framing = 0;
        for (var i = 0; i < parts; i++)
        {
            heads[i] = Encoding.ASCII.GetBytes((i == 0 ? "--" : "\r\n--") + Boundary + "\r\n" + headers(i) + "\r\n");
            framing += heads[i].Length;
        }

        var close = Encoding.ASCII.GetBytes("\r\n--" + Boundary + "--\r\n");
        framing += close.Length;
        var dataBytes = BodyBytes - framing;
        var body = new byte[BodyBytes];
        var sections = new Range[parts];
        var position = 0;
        for (var i = 0; i < parts; i++)
        {
            heads[i].CopyTo(body, position);
            position += heads[i].Length;
            var length = (int)(i < parts - 1 ? dataBytes / parts : dataBytes - (dataBytes / parts * (parts - 1)));
            fill(body.AsSpan(position, length));
            sections[i] = new Range(position, position + length);
            position += length;
        }

        close.CopyTo(body, position);
        return new MultipartBody(body, Boundary, sections);
    }

    private static void Repeat(Span<byte> data, string unit)
    {
        var bytes = Encoding.ASCII.GetBytes(unit);
        for (var offset = 0; offset < data.Length; offset += bytes.Length)
        {
            bytes.AsSpan(0, Math.Min(bytes.Length, data.Length - offset)).CopyTo(data[offset..]);
        }
    }

    /// <summary>xorshift64: the same bytes every run; file-like data in which the delimiter's bytes are as rare as anywhere.</summary>
    private static void PseudoRandom(Span<byte> data)
    {
        var state = 0x9E3779B97F4A7C15UL ^ (ulong)data.Length;
        for (var i = 0; i < data.Length; i++)
        {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            data[i] = (byte)state;
        }
    }
}
