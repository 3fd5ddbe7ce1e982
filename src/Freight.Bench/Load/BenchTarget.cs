namespace Freight.Bench.Load;

/// <summary>
/// Where the bench sends requests: an HTTP, HTTPS and/or cleartext HTTP/2 (h2c, prior knowledge; an http://
/// address) base address and the certificate pin.
/// </summary>
public sealed record BenchTarget(Uri? Http, Uri? Https, string? CertificateSha256, Uri? H2c = null)
{
    /// <summary>The scheme of the rows sent as cleartext HTTP/2 with prior knowledge.</summary>
    public const string H2cScheme = "h2c";

    public Uri BaseFor(string scheme) => Address(scheme)
        ?? throw new InvalidOperationException($"The target has no {scheme} address.");

    public bool Supports(string scheme) => Address(scheme) is not null;

    private Uri? Address(string scheme) => scheme switch
    {
        "https" => Https,
        H2cScheme => H2c,
        _ => Http,
    };
}
