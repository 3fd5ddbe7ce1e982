namespace Freight.Bench.Reports.Output;

/// <summary>What a bar stands for: one of our variants, a peer server, a study's published figure, or a ceiling.</summary>
public enum BarKind
{
    Ours,
    Peer,
    Published,

    /// <summary>A measured ceiling rather than a variant (<c>tcp/loopback</c>).</summary>
    Reference,
}
