using Microsoft.AspNetCore.Http;
using Microsoft.Net.Http.Headers;

namespace Freight.Downloads;

/// <summary>What the conditional headers of a request decide (RFC 9110 §13.2.2).</summary>
public enum PreconditionOutcome
{
    /// <summary>No condition applies, or every condition holds: answer normally.</summary>
    Proceed,

    /// <summary>304: the client's copy is current (If-None-Match or If-Modified-Since on GET/HEAD).</summary>
    NotModified,

    /// <summary>412: If-Match, If-Unmodified-Since, or If-None-Match on a method other than GET/HEAD failed.</summary>
    PreconditionFailed,
}

/// <summary>Evaluates conditional request headers against a representation, in the order RFC 9110 §13.2.2 sets.</summary>
public static class Preconditions
{
    public static PreconditionOutcome Evaluate(HttpRequest request, EntityTagHeaderValue? entityTag, DateTimeOffset? lastModified)
    {
        ArgumentNullException.ThrowIfNull(request);
        var headers = request.Headers;
        var ifMatch = headers.IfMatch;
        var ifNoneMatch = headers.IfNoneMatch;
        var ifModifiedSince = headers.IfModifiedSince;
        var ifUnmodifiedSince = headers.IfUnmodifiedSince;

        // The common case (no validator sent) costs four header lookups.
        if (ifMatch.Count == 0 && ifNoneMatch.Count == 0 && ifModifiedSince.Count == 0 && ifUnmodifiedSince.Count == 0)
        {
            return PreconditionOutcome.Proceed;
        }

        // Step 1: If-Match, strong comparison (§13.1.1); "*" matches any current representation.
        if (ifMatch.Count > 0)
        {
            if (!AnyMatches(ifMatch, entityTag, useStrongComparison: true))
            {
                return PreconditionOutcome.PreconditionFailed;
            }
        }

        // Step 2: If-Unmodified-Since, only without If-Match (§13.1.4); an invalid date is ignored.
        else if (ifUnmodifiedSince.Count > 0 && lastModified is { } modified
            && HeaderUtilities.TryParseDate(ifUnmodifiedSince.ToString(), out var unmodifiedSince)
            && modified > unmodifiedSince)
        {
            return PreconditionOutcome.PreconditionFailed;
        }

        var safe = HttpMethods.IsGet(request.Method) || HttpMethods.IsHead(request.Method);

        // Step 3: If-None-Match, weak comparison (§13.1.2).
        if (ifNoneMatch.Count > 0)
        {
            if (AnyMatches(ifNoneMatch, entityTag, useStrongComparison: false))
            {
                return safe ? PreconditionOutcome.NotModified : PreconditionOutcome.PreconditionFailed;
            }
        }

        // Step 4: If-Modified-Since, only on GET/HEAD and only without If-None-Match (§13.1.3).
        else if (safe && ifModifiedSince.Count > 0 && lastModified is { } modified
            && HeaderUtilities.TryParseDate(ifModifiedSince.ToString(), out var modifiedSince)
            && modified <= modifiedSince)
        {
            return PreconditionOutcome.NotModified;
        }

        return PreconditionOutcome.Proceed;
    }

    private static bool AnyMatches(Microsoft.Extensions.Primitives.StringValues values, EntityTagHeaderValue? entityTag, bool useStrongComparison)
    {
        // An unparsable list matches nothing: If-Match then fails, If-None-Match then holds.
        if (!EntityTagHeaderValue.TryParseList(values, out var tags))
        {
            return false;
        }

        foreach (var tag in tags)
        {
            // "*": any current representation (§13.1.1, §13.1.2); there is one when we have a tag.
            if (tag.Equals(EntityTagHeaderValue.Any))
            {
                return entityTag is not null;
            }

            if (entityTag is not null && tag.Compare(entityTag, useStrongComparison))
            {
                return true;
            }
        }

        return false;
    }
}
