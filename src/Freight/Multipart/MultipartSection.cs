namespace Freight.Multipart;

/// <summary>The parsed headers of one part of a multipart body (RFC 2046 §5.1, RFC 7578 §4.2).</summary>
public sealed class MultipartSection
{
    private readonly KeyValuePair<string, string>[] _headers;

    internal MultipartSection(
        KeyValuePair<string, string>[] headers,
        string? contentDisposition,
        string? dispositionType,
        string? name,
        string? fileName,
        string? contentType)
    {
        _headers = headers;
        ContentDisposition = contentDisposition;
        DispositionType = dispositionType;
        Name = name;
        FileName = fileName;
        ContentType = contentType;
    }

    /// <summary>The raw Content-Disposition header value, or null when the part has none.</summary>
    public string? ContentDisposition { get; }

    /// <summary>The disposition type (RFC 7578 §4.2 requires <c>form-data</c>), or null when there is no Content-Disposition.</summary>
    public string? DispositionType { get; }

    /// <summary>The <c>name</c> parameter of Content-Disposition (quotes removed), or null.</summary>
    public string? Name { get; }

    /// <summary>
    /// The file name: <c>filename*</c> (RFC 6266/5987) when present and decodable, else <c>filename</c> (quotes removed).
    /// Null for a form field (no filename parameter); empty when the sender sent <c>filename=""</c> (e.g. an empty file input).
    /// This is untrusted client input: never use it as a path.
    /// </summary>
    public string? FileName { get; }

    /// <summary>The Content-Type header value of the part, or null (RFC 7578 §4.4: defaults to text/plain).</summary>
    public string? ContentType { get; }

    /// <summary>All header lines of the part in order of appearance.</summary>
    public IReadOnlyList<KeyValuePair<string, string>> Headers => _headers;

    /// <summary>The value of the first header named <paramref name="name"/> (case-insensitive), or null.</summary>
    public string? GetHeader(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        foreach (var header in _headers)
        {
            if (string.Equals(header.Key, name, StringComparison.OrdinalIgnoreCase))
            {
                return header.Value;
            }
        }

        return null;
    }
}
