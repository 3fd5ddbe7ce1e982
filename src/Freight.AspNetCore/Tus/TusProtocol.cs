using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using Freight.AspNetCore.Errors;
using Microsoft.AspNetCore.Http;

namespace Freight.AspNetCore.Tus;

/// <summary>The tus 1.0 header names, values and parsers (https://tus.io/protocols/resumable-upload); a malformed header is a 400 that names it.</summary>
internal static class TusProtocol
{
    public const string Version = "1.0.0";
    public const string ResumableHeader = "Tus-Resumable";
    public const string VersionHeader = "Tus-Version";
    public const string ExtensionHeader = "Tus-Extension";
    public const string MaxSizeHeader = "Tus-Max-Size";
    public const string ChecksumAlgorithmHeader = "Tus-Checksum-Algorithm";
    public const string OffsetHeader = "Upload-Offset";
    public const string LengthHeader = "Upload-Length";
    public const string DeferLengthHeader = "Upload-Defer-Length";
    public const string MetadataHeader = "Upload-Metadata";
    public const string ExpiresHeader = "Upload-Expires";
    public const string ChecksumHeader = "Upload-Checksum";
    public const string ConcatHeader = "Upload-Concat";
    public const string MethodOverrideHeader = "X-HTTP-Method-Override";
    public const string OffsetContentType = "application/offset+octet-stream";

    /// <summary>Every extension this server implements (concatenation-unfinished is not: parts must be complete).</summary>
    public const string Extensions = "creation,creation-with-upload,creation-defer-length,termination,checksum,expiration,concatenation";

    /// <summary>Checksum algorithms accepted in Upload-Checksum (sha1 is the one the protocol requires).</summary>
    public const string ChecksumAlgorithms = "sha1,sha256,sha512,md5";

    /// <summary>The protocol's own status for a chunk whose checksum does not match.</summary>
    public const int ChecksumMismatchStatus = 460;

    /// <summary>A refusal with the tus headers every response carries (the problem middleware clears the others).</summary>
    public static ProblemException Problem(int status, string title, string detail, Dictionary<string, string>? headers = null)
    {
        headers ??= [];
        headers[ResumableHeader] = Version;
        return new ProblemException(status, title, detail, headers);
    }

    /// <summary>An Upload-Offset / Upload-Length value: a non-negative decimal integer, digits only.</summary>
    public static bool TryParseSize(string? value, out long size)
    {
        size = 0;
        return !string.IsNullOrEmpty(value) && value.All(char.IsAsciiDigit)
            && long.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out size);
    }

    public static long? Size(HttpRequest request, string header)
    {
        var values = request.Headers[header];
        if (values.Count == 0)
        {
            return null;
        }

        return values.Count == 1 && TryParseSize(values[0], out var size)
            ? size
            : throw Problem(StatusCodes.Status400BadRequest, "Malformed header", $"{header} must be one non-negative whole number of bytes.");
    }

    /// <summary>
    /// Upload-Metadata: comma-separated <c>key base64value</c> pairs (or a bare key), keys unique, ASCII,
    /// without spaces or commas. Returns the decoded values (UTF-8; null for a bare key).
    /// </summary>
    public static Dictionary<string, string?> Metadata(string? header)
    {
        var metadata = new Dictionary<string, string?>(StringComparer.Ordinal);
        if (string.IsNullOrWhiteSpace(header))
        {
            return metadata;
        }

        foreach (var pair in header.Split(','))
        {
            var parts = pair.Trim().Split(' ');
            var key = parts[0];
            if (key.Length == 0 || parts.Length > 2 || key.Any(c => c is <= ' ' or > '~') || metadata.ContainsKey(key))
            {
                throw Problem(StatusCodes.Status400BadRequest, "Malformed header",
                    "Upload-Metadata must be comma-separated 'key base64value' pairs with unique ASCII keys (no spaces or commas in a key).");
            }

            string? value = null;
            if (parts.Length == 2)
            {
                try
                {
                    value = new UTF8Encoding(false, throwOnInvalidBytes: true).GetString(Convert.FromBase64String(parts[1]));
                }
                catch (Exception bad) when (bad is FormatException or ArgumentException)
                {
                    throw Problem(StatusCodes.Status400BadRequest, "Malformed header", $"Upload-Metadata '{key}' is not the base64 of UTF-8 text.");
                }
            }

            metadata[key] = value;
        }

        return metadata;
    }

    /// <summary>
    /// Upload-Concat: <c>partial</c>, or <c>final;URL URL…</c> naming partial uploads of this server (absolute URLs or
    /// paths) under the tus endpoint's <paramref name="prefix"/>.
    /// </summary>
    public static (bool Partial, IReadOnlyList<string>? FinalParts) Concat(HttpRequest request, PathString prefix)
    {
        var header = request.Headers[ConcatHeader].ToString().Trim();
        if (header.Length == 0)
        {
            return (false, null);
        }

        if (header == "partial")
        {
            return (true, null);
        }

        if (!header.StartsWith("final;", StringComparison.Ordinal))
        {
            throw Problem(StatusCodes.Status400BadRequest, "Malformed header", "Upload-Concat must be 'partial' or 'final;' followed by the partial uploads' URLs.");
        }

        var ids = new List<string>();
        foreach (var url in header["final;".Length..].Split(' ', StringSplitOptions.RemoveEmptyEntries))
        {
            var path = Uri.TryCreate(url, UriKind.Absolute, out var absolute) ? absolute.AbsolutePath : url;
            var id = path.TrimEnd('/');
            id = id[(id.LastIndexOf('/') + 1)..];
            if (!path.Contains(prefix.Value + "/", StringComparison.Ordinal) || !Resumable.ResumableUploadId.IsValid(id))
            {
                // The endpoint as the client reaches it (behind a proxy's prefix too); the test above stays on the route's own
                // prefix, which a URL through any mount contains.
                throw Problem(StatusCodes.Status400BadRequest, "Invalid concatenation", $"'{url}' is not an upload of this server's tus endpoint ({request.PathBase.Add(prefix).Value}/).");
            }

            ids.Add(id);
        }

        if (ids.Count == 0)
        {
            throw Problem(StatusCodes.Status400BadRequest, "Invalid concatenation", "Upload-Concat: final; must name at least one partial upload.");
        }

        return (false, ids);
    }

    /// <summary>Upload-Checksum (<c>algorithm base64</c>) as a hash to run over the chunk, or null when none was sent.</summary>
    public static TusChecksum? Checksum(HttpRequest request)
    {
        var header = request.Headers[ChecksumHeader].ToString().Trim();
        if (header.Length == 0)
        {
            return null;
        }

        var parts = header.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        if (parts.Length != 2)
        {
            throw Problem(StatusCodes.Status400BadRequest, "Malformed header", "Upload-Checksum must be an algorithm and the base64 checksum, separated by a space.");
        }

        HashAlgorithmName? algorithm = parts[0] switch
        {
            "sha1" => HashAlgorithmName.SHA1,
            "sha256" => HashAlgorithmName.SHA256,
            "sha512" => HashAlgorithmName.SHA512,
            "md5" => HashAlgorithmName.MD5,
            _ => null,
        };
        if (algorithm is null)
        {
            // The protocol's answer to an algorithm the server does not support.
            throw Problem(StatusCodes.Status400BadRequest, "Unsupported checksum algorithm", $"'{parts[0]}' is not supported; use one of {ChecksumAlgorithms}.");
        }

        byte[] expected;
        try
        {
            expected = Convert.FromBase64String(parts[1]);
        }
        catch (FormatException)
        {
            throw Problem(StatusCodes.Status400BadRequest, "Malformed header", "Upload-Checksum's checksum is not base64.");
        }

        return new TusChecksum(parts[0], algorithm.Value, expected);
    }

    /// <summary>The RFC 9110 HTTP-date of Upload-Expires.</summary>
    public static string FormatDate(DateTimeOffset time) => time.UtcDateTime.ToString("R", CultureInfo.InvariantCulture);
}
