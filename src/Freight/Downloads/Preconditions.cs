using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Primitives;
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
    /// <summary>Evaluates the request's conditional headers (RFC 9110 §13.2.2 order) against the representation's <paramref name="entityTag"/> and <paramref name="lastModified"/>.</summary>
    public static PreconditionOutcome Evaluate(HttpRequest request, EntityTagHeaderValue? entityTag, DateTimeOffset? lastModified)
    {
        ArgumentNullException.ThrowIfNull(request);
        return Evaluate(request, entityTag, lastModified, DateTimeOffset.UtcNow);
    }

    /// <summary>As the public <see cref="Evaluate(HttpRequest, EntityTagHeaderValue?, DateTimeOffset?)"/>, at <paramref name="now"/>: the clock the response's Date was read from.</summary>
    internal static PreconditionOutcome Evaluate(HttpRequest request, EntityTagHeaderValue? entityTag, DateTimeOffset? lastModified, DateTimeOffset now)
    {
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

        // Step 2: If-Unmodified-Since, only without If-Match (§13.1.4); an invalid date is ignored. The date of
        // the second still under way proves nothing (IsWeak): the file may have changed after the client looked.
        else if (ifUnmodifiedSince.Count > 0 && lastModified is { } modified
            && HeaderUtilities.TryParseDate(ifUnmodifiedSince.ToString(), out var unmodifiedSince)
            && (modified > unmodifiedSince || (modified == unmodifiedSince && IsWeak(modified, now))))
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

    /// <summary>
    /// If-Range (RFC 9110 §13.1.5), step 5 of §13.2.2: true when the request's Range may be honoured (no
    /// If-Range, or its validator is the current one); false when the Range must be ignored and the whole
    /// representation sent (200). Only meaningful for a GET with a Range header, after <see cref="Evaluate(HttpRequest, EntityTagHeaderValue?, DateTimeOffset?)"/>
    /// proceeded: without Range a server ignores If-Range (§13.1.5), so callers ask only when Range is present.
    /// </summary>
    public static bool IfRangeHolds(HttpRequest request, EntityTagHeaderValue? entityTag, DateTimeOffset? lastModified)
    {
        ArgumentNullException.ThrowIfNull(request);
        return IfRangeHolds(request, entityTag, lastModified, DateTimeOffset.UtcNow);
    }

    /// <summary>As the public <see cref="IfRangeHolds(HttpRequest, EntityTagHeaderValue?, DateTimeOffset?)"/>, at <paramref name="now"/>: the clock the response's Date was read from.</summary>
    internal static bool IfRangeHolds(HttpRequest request, EntityTagHeaderValue? entityTag, DateTimeOffset? lastModified, DateTimeOffset now)
    {
        var ifRange = request.Headers.IfRange;
        if (ifRange.Count == 0)
        {
            return true;
        }

        // If-Range = entity-tag / HTTP-date: one value, not a list; two field lines validate nothing.
        if (ifRange.Count > 1)
        {
            return false;
        }

        var value = new StringSegment(ifRange[0]).Trim();
        if (value.StartsWith("\"", StringComparison.Ordinal) || value.StartsWith("W/", StringComparison.Ordinal))
        {
            // §13.1.5: the strong comparison (§8.8.3.2), so a weak tag never matches: a weakly equal
            // representation may differ in its bytes, and the client would splice a range into the wrong ones.
            return entityTag is not null
                && EntityTagHeaderValue.TryParse(value, out var tag)
                && tag.Compare(entityTag, useStrongComparison: true);
        }

        // §13.1.5: a date must exactly match Last-Modified, and count only as a strong validator (§8.8.2.2):
        // never the date of the second still under way (IsWeak). A file rewritten twice within an earlier second
        // keeps its Last-Modified too, but a response sent within that second said so (its Date equals its
        // Last-Modified, which §8.8.2.2 tells a client is weak); clients that can should send the ETag (strong,
        // from 100 ns ticks) instead. An unparsable value matches nothing: the Range is ignored.
        return lastModified is { } modified
            && HeaderUtilities.TryParseDate(value, out var date)
            && date == modified
            && !IsWeak(modified, now);
    }

    /// <summary>
    /// Whether <paramref name="lastModified"/> (whole seconds) is only a weak validator at <paramref name="now"/> (RFC 9110
    /// §8.8.2.2): its second is not over, so the file may change again within it and keep the same Last-Modified, and a
    /// client's date equal to it may stand for bytes the file no longer holds. A modification time ahead of the clock counts too.
    /// </summary>
    internal static bool IsWeak(DateTimeOffset lastModified, DateTimeOffset now) =>
        now.UtcTicks - lastModified.UtcTicks < TimeSpan.TicksPerSecond;

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
