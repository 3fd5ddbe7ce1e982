using System.Buffers;
using System.IO.Hashing;

namespace Freight.Micro.Multipart;

/// <summary>What a parser handed out: each section's length and a hash of all section bytes (verification only, never timed).</summary>
public sealed class SectionRecorder
{
    private readonly List<long> _lengths = [];
    private readonly XxHash128 _hash = new();

    public IReadOnlyList<long> Lengths => _lengths;

    public UInt128 DataHash => _hash.GetCurrentHashAsUInt128();

    public void StartSection() => _lengths.Add(0);

    public void Append(ReadOnlySpan<byte> data)
    {
        _lengths[^1] += data.Length;
        _hash.Append(data);
    }

    public void Append(in ReadOnlySequence<byte> data)
    {
        foreach (var segment in data)
        {
            Append(segment.Span);
        }
    }
}
