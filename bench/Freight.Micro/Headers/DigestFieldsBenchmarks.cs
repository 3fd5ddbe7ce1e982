using BenchmarkDotNet.Attributes;
using Freight.Digests;

namespace Freight.Micro.Headers;

/// <summary>
/// RFC 9530 Content-Digest / Repr-Digest parsing (<see cref="DigestFields.TryParse"/>, an RFC 8941 Dictionary read by
/// the structured-field reader, base64 decoded).
/// </summary>
/// <remarks>Not sealed: BenchmarkDotNet derives from benchmark classes.</remarks>
public class DigestFieldsBenchmarks
{
    // RFC 9530 Appendix B's digests of {"hello": "world"}.
    private const string Sha256 = "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:";
    private const string Sha512 = "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:";

    [ParamsSource(nameof(Fields))]
    public TextInput Input { get; set; } = null!;

    public static IEnumerable<TextInput> Fields =>
    [
        new("sha-256", "Content-Digest: sha-256 (what a client sends with an upload)", Sha256),
        new("sha-256+sha-512+unknown", "sha-256, sha-512 and an unknown key with parameters", $"{Sha256}, {Sha512}, x-custom=:AQID:;p=1"),
    ];

    [GlobalSetup]
    public void Setup()
    {
        if (!DigestFields.TryParse(Input.Text, out var digests) || digests.Count == 0)
        {
            throw new InvalidDataException($"Digest field '{Input.Name}' did not parse.");
        }
    }

    [Benchmark(Description = "digest-fields")]
    public IReadOnlyDictionary<string, byte[]> Parse()
    {
        DigestFields.TryParse(Input.Text, out var digests);
        return digests;
    }
}
