using System.Globalization;

namespace Freight.Server.Hosting;

/// <summary>
/// <c>Freight:CorsOrigins</c> values as a browser sends its <c>Origin</c>: the CORS policy compares the header with each
/// origin as text, so a value spelled otherwise never matched (a trailing <c>/</c> started the server and blocked every
/// page). A value is written as browsers serialise origins: scheme and host in lower case (an international host in
/// punycode), the port only when not the scheme's default, no trailing <c>/</c>. What is no origin is refused by name.
/// </summary>
internal static class CorsOrigin
{
    public const string AnyOrigin = "*";

    /// <summary>The origins as browsers write them (<c>*</c> kept); call after <see cref="Problem"/> found none wrong.</summary>
    public static string[] Normalize(IEnumerable<string> values) =>
        [.. values.Select(value => TryNormalize(value, out var origin, out _) ? origin : throw new ArgumentException($"'{value}' is not an origin.", nameof(values)))];

    /// <summary>What is wrong with <paramref name="value"/> as an origin, or null when it is one.</summary>
    public static string? Problem(string value) => TryNormalize(value, out _, out var problem) ? null : problem;

    private static bool TryNormalize(string value, out string origin, out string problem)
    {
        origin = value;
        problem = "";
        if (value == AnyOrigin)
        {
            return true;
        }

        if (value.Contains('*', StringComparison.Ordinal))
        {
            problem = "a wildcard in an origin (https://*.example.com) is not supported: list each origin, or give * alone for any.";
            return false;
        }

        if (!Uri.TryCreate(value, UriKind.Absolute, out var uri) || uri.Scheme is not ("http" or "https") || uri.Host.Length == 0
            || !value.Contains("://", StringComparison.Ordinal))
        {
            problem = "an origin is http:// or https://, a host, and a port when not the default, e.g. https://app.example.com, or * for any.";
            return false;
        }

        var serialized = uri.Scheme + "://" + (uri.HostNameType == UriHostNameType.Dns ? uri.IdnHost : uri.Host)
            + (uri.IsDefaultPort ? "" : ":" + uri.Port.ToString(CultureInfo.InvariantCulture));
        if (uri.AbsolutePath != "/" || uri.Query.Length > 0 || uri.Fragment.Length > 0 || uri.UserInfo.Length > 0)
        {
            problem = $"an origin has no path, query or user name: give {serialized}.";
            return false;
        }

        origin = serialized;
        return true;
    }
}
