using Freight.AspNetCore.Tus;
using Freight.Digests;
using Microsoft.Net.Http.Headers;

using Microsoft.AspNetCore.Cors.Infrastructure;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>
/// What a browser on another origin needs to use the files API and tus: <c>policy.WithFreightHeaders()</c> in
/// <c>AddCors</c>, with the origins the app chooses. Without it a page can send no token, no digest, no tus header,
/// and read no <c>ETag</c>, <c>Location</c> or <c>Upload-Offset</c> (tus-js-client fails on its first request).
/// <c>app.UseFreightCors()</c> applies the policy with the headers a policy cannot give (<c>Vary: Origin</c>,
/// <c>Timing-Allow-Origin</c>).
/// </summary>
public static class FreightCorsPolicyBuilderExtensions
{
    /// <summary>
    /// The request headers Freight's endpoints read: a preflight must allow each by name (<c>*</c> does not cover
    /// <c>Authorization</c>). <c>Content-Encoding</c> too, so a compressed body reads the 415 problem rather than a CORS
    /// error, and <c>Cache-Control</c> and <c>Pragma</c>, which some HTTP wrappers add to every request.
    /// </summary>
    private static readonly string[] s_requestHeaders =
    [
        HeaderNames.Authorization, HeaderNames.ContentType, HeaderNames.ContentMD5, HeaderNames.ContentEncoding, HeaderNames.CacheControl, HeaderNames.Pragma,
        DigestFields.ContentDigestHeader, DigestFields.ReprDigestHeader, WantDigest.WantContentDigestHeader, WantDigest.WantReprDigestHeader,
        HeaderNames.IfMatch, HeaderNames.IfNoneMatch, HeaderNames.IfModifiedSince, HeaderNames.IfUnmodifiedSince, HeaderNames.Range, HeaderNames.IfRange,
        TusProtocol.ResumableHeader, TusProtocol.OffsetHeader, TusProtocol.LengthHeader, TusProtocol.DeferLengthHeader,
        TusProtocol.MetadataHeader, TusProtocol.ChecksumHeader, TusProtocol.ConcatHeader, "X-HTTP-Method-Override", "X-Requested-With",
    ];

    /// <summary>
    /// The response headers a page must be let to read (beyond the CORS-safelisted ones): <c>Content-Location</c> names
    /// the file a finished tus upload became, <c>Content-Disposition</c> the download name of <c>FreightResults.File</c>.
    /// </summary>
    private static readonly string[] s_exposedHeaders =
    [
        HeaderNames.ETag, HeaderNames.Location, HeaderNames.ContentLocation, HeaderNames.ContentDisposition, HeaderNames.ContentRange, HeaderNames.AcceptRanges, HeaderNames.ContentLength,
        HeaderNames.RetryAfter, HeaderNames.WWWAuthenticate, DigestFields.ContentDigestHeader, DigestFields.ReprDigestHeader,
        TusProtocol.ResumableHeader, TusProtocol.VersionHeader, TusProtocol.ExtensionHeader, TusProtocol.MaxSizeHeader,
        TusProtocol.ChecksumAlgorithmHeader, TusProtocol.OffsetHeader, TusProtocol.LengthHeader, TusProtocol.DeferLengthHeader,
        TusProtocol.MetadataHeader, TusProtocol.ExpiresHeader, TusProtocol.ConcatHeader,
    ];

    /// <summary>
    /// Allows the methods and request headers the files API and tus use (OPTIONS too: tus discovery, <c>Tus-Max-Size</c>
    /// before an upload), exposes the response headers their clients read, and lets a browser keep a preflight for an
    /// hour (a tus upload sends one PATCH per chunk). Origins stay the app's choice. No credentials: Freight's tokens
    /// travel in <c>Authorization</c>, not cookies. Apply it with <c>app.UseFreightCors()</c>.
    /// </summary>
    public static CorsPolicyBuilder WithFreightHeaders(this CorsPolicyBuilder policy)
    {
        ArgumentNullException.ThrowIfNull(policy);
        return policy
            .WithMethods("GET", "HEAD", "PUT", "POST", "PATCH", "DELETE", "OPTIONS")
            .WithHeaders(s_requestHeaders)
            .WithExposedHeaders(s_exposedHeaders)
            .SetPreflightMaxAge(TimeSpan.FromHours(1));
    }
}
