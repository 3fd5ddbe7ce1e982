using System.IO.Hashing;

namespace Freight.Micro.Multipart;

/// <summary>A built multipart body and where each section's data lies in it: what a parser must find.</summary>
public sealed class MultipartBody
{
    public MultipartBody(byte[] bytes, string boundary, IReadOnlyList<Range> sections)
    {
        Bytes = bytes;
        Boundary = boundary;
        Sections = sections;
    }

    public byte[] Bytes { get; }

    public string Boundary { get; }

    /// <summary>Each section's data, in order, as a range of <see cref="Bytes"/>.</summary>
    public IReadOnlyList<Range> Sections { get; }

    /// <summary>XXH3-128 of every section's data, in order: what <see cref="SectionRecorder.DataHash"/> must equal.</summary>
    public UInt128 DataHash()
    {
        var hash = new XxHash128();
        foreach (var section in Sections)
        {
            hash.Append(Bytes.AsSpan()[section]);
        }

        return hash.GetCurrentHashAsUInt128();
    }

    /// <summary>
    /// Throws unless <paramref name="parsed"/> found exactly these sections: their count, each one's length, and the
    /// hash of all their bytes.
    /// </summary>
    /// <exception cref="InvalidDataException">A parser found other sections or other bytes.</exception>
    public void Verify(SectionRecorder parsed, string parser)
    {
        ArgumentNullException.ThrowIfNull(parsed);
        if (parsed.Lengths.Count != Sections.Count)
        {
            throw new InvalidDataException($"{parser}: {parsed.Lengths.Count} sections, expected {Sections.Count}.");
        }

        for (var i = 0; i < Sections.Count; i++)
        {
            var expected = Sections[i].GetOffsetAndLength(Bytes.Length).Length;
            if (parsed.Lengths[i] != expected)
            {
                throw new InvalidDataException($"{parser}: section {i} has {parsed.Lengths[i]} bytes, expected {expected}.");
            }
        }

        if (parsed.DataHash != DataHash())
        {
            throw new InvalidDataException($"{parser}: the sections' bytes differ from the body's.");
        }
    }
}
