namespace Freight.Bench.Load;

/// <summary>Where the bench sends requests: an HTTP and/or HTTPS base address and the certificate pin.</summary>
public sealed record BenchTarget(Uri? Http, Uri? Https, string? CertificateSha256)
{
    public Uri BaseFor(string scheme) => (scheme == "https" ? Https : Http)
        ?? throw new InvalidOperationException($"The target has no {scheme} address.");

    public bool Supports(string scheme) => (scheme == "https" ? Https : Http) is not null;
}
