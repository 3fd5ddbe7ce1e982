using System.Text;
using CsCheck;
using Freight.Multipart;

namespace Freight.Tests.Multipart;

/// <summary>
/// Encode → parse round trip: generated parts (names, file names, content types, bodies full of CR, LF, dashes and
/// pieces of the delimiter), a generated boundary, preamble and epilogue, cut into generated pieces. Both feeders
/// (<see cref="MultipartHarness.ParseBothAsync"/>) must give back every part exactly as it was encoded.
/// </summary>
public sealed class MultipartRoundTripProperties
{
    private sealed record Part(string Name, string? FileName, string? ContentType, byte[] Body);

    private sealed record Body(string Boundary, Part[] Parts, string Preamble, string Epilogue, int[] PieceSizes)
    {
        public override string ToString() =>
            $"boundary '{Boundary}', preamble '{Preamble}', pieces [{string.Join(',', PieceSizes)}], parts: "
            + string.Join("; ", Parts.Select(part => $"{part.Name}|{part.FileName}|{part.ContentType}|{Convert.ToHexString(part.Body)}"));
    }

    // RFC 2046 §5.1.1 bchars; a boundary may hold spaces but not end in one.
    private static readonly Gen<string> s_boundary = Gen.String[Gen.Char["0123456789abcXYZ'()+_,-./:=? "], 1, MultipartBoundary.MaxLength]
        .Where(boundary => boundary[^1] != ' ');

    private static readonly Gen<string> s_word = Gen.String[Gen.Char["abcdefxyz0123456789 _-.é"], 1, 12];

    private static Gen<byte[]> BodyBytes(string boundary)
    {
        // Fragments that bring a parser close to a delimiter without completing one: CRLF, dashes, the boundary
        // without its CRLF, the delimiter cut short; and plain bytes in between.
        var delimiter = "\r\n--" + boundary;
        var fragments = new List<byte[]> { "\r\n"u8.ToArray(), "\r"u8.ToArray(), "\n"u8.ToArray(), "-"u8.ToArray(), "--"u8.ToArray() };
        fragments.Add(Encoding.ASCII.GetBytes("--" + boundary));
        for (var cut = 1; cut < delimiter.Length; cut++)
        {
            fragments.Add(Encoding.ASCII.GetBytes(delimiter[..cut]));
        }

        var fragment = Gen.Frequency((2, Gen.OneOf(fragments.ToArray())), (3, Gen.Byte.Array[1, 40]));
        return fragment.Array[0, 12].Select(pieces => pieces.SelectMany(piece => piece).ToArray());
    }

    private static readonly Gen<Body> s_body =
        from boundary in s_boundary
        from parts in Gen.Select(
            s_word,
            s_word.Null(),
            Gen.OneOf<string?>(null, "text/plain", "application/octet-stream"),
            BodyBytes(boundary),
            (name, fileName, contentType, body) => new Part(name, fileName, contentType, body)).Array[0, 5]
        from preamble in Gen.OneOf("", "preamble\r\n", "\r\n", "x-- not it --\r\n")
        from epilogue in Gen.OneOf("", "\r\n", "epilogue \r\n--" + boundary + "--\r\n")
        from pieceSizes in Gen.Int[1, 48].Array[1, 8]
        select new Body(boundary, parts, preamble, epilogue, pieceSizes);

    [Fact]
    public async Task ParseBoth_EncodedParts_GiveBackEveryPartExactly()
    {
        await s_body
            .Where(body => body.Parts.All(part => !Contains(part.Body, "\r\n--" + body.Boundary)))
            .SampleAsync(async body =>
            {
                var parsed = await MultipartHarness.ParseBothAsync(Cut(Encode(body), body.PieceSizes), body.Boundary);

                Assert.Equal(body.Parts.Length, parsed.Count);
                for (var i = 0; i < parsed.Count; i++)
                {
                    Assert.Equal(body.Parts[i].Name, parsed[i].Section.Name);
                    Assert.Equal(body.Parts[i].FileName, parsed[i].Section.FileName);
                    Assert.Equal(body.Parts[i].ContentType, parsed[i].Section.ContentType);
                    Assert.Equal(body.Parts[i].Body, parsed[i].Data);
                }
            }, iter: 1500, threads: 1, print: body => body.ToString());
    }

    private static byte[] Encode(Body body)
    {
        var builder = new MultipartBodyBuilder(body.Boundary, body.Preamble);
        foreach (var part in body.Parts)
        {
            var headers = new StringBuilder($"Content-Disposition: form-data; name=\"{part.Name}\"");
            if (part.FileName is not null)
            {
                headers.Append($"; filename=\"{part.FileName}\"");
            }

            headers.Append("\r\n");
            if (part.ContentType is not null)
            {
                headers.Append($"Content-Type: {part.ContentType}\r\n");
            }

            builder.Part(headers.ToString(), part.Body);
        }

        return builder.Build(body.Epilogue);
    }

    private static List<ReadOnlyMemory<byte>> Cut(byte[] encoded, int[] sizes)
    {
        var pieces = new List<ReadOnlyMemory<byte>>();
        for (int offset = 0, i = 0; offset < encoded.Length; i++)
        {
            var size = Math.Min(sizes[i % sizes.Length], encoded.Length - offset);
            pieces.Add(encoded.AsMemory(offset, size));
            offset += size;
        }

        return pieces;
    }

    private static bool Contains(byte[] data, string text) => data.AsSpan().IndexOf(Encoding.ASCII.GetBytes(text)) >= 0;
}
