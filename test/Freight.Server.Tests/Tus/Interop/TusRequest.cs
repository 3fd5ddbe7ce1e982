namespace Freight.Server.Tests.Tus.Interop;

/// <summary>One request as tus-js-client sent it: <see cref="Status"/> is null when no answer came (aborted).</summary>
internal sealed record TusRequest(string Phase, string Method, string Url, IReadOnlyDictionary<string, string> Headers)
{
    public int? Status { get; init; }

    public IReadOnlyDictionary<string, string> ResponseHeaders { get; init; } = new Dictionary<string, string>();

    public string? Header(string name) => Headers.TryGetValue(name, out var value) ? value : null;

    public string? ResponseHeader(string name) => ResponseHeaders.TryGetValue(name, out var value) ? value : null;
}
