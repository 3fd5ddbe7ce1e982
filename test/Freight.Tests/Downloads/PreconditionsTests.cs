using Freight.Downloads;
using Microsoft.AspNetCore.Http;
using Microsoft.Net.Http.Headers;

namespace Freight.Tests.Downloads;

/// <summary>
/// Conditional requests (RFC 9110 §13.1) evaluated in the order of §13.2.2 against a representation with
/// the tag <c>"v1"</c> last modified at <see cref="LastModified"/>. Requests are real <see cref="DefaultHttpContext"/>s.
/// </summary>
public sealed class PreconditionsTests
{
    private static readonly EntityTagHeaderValue Tag = new("\"v1\"");
    private static readonly DateTimeOffset LastModified = new(2026, 3, 4, 5, 6, 7, TimeSpan.Zero);

    private static readonly string Before = HeaderUtilities.FormatDate(LastModified.AddHours(-1));
    private static readonly string Same = HeaderUtilities.FormatDate(LastModified);
    private static readonly string After = HeaderUtilities.FormatDate(LastModified.AddHours(1));

    private static HttpRequest Request(string method, params (string Name, string Value)[] headers)
    {
        var context = new DefaultHttpContext();
        context.Request.Method = method;
        foreach (var (name, value) in headers)
        {
            context.Request.Headers.Append(name, value);
        }

        return context.Request;
    }

    private static PreconditionOutcome Evaluate(string method, params (string Name, string Value)[] headers) =>
        Preconditions.Evaluate(Request(method, headers), Tag, LastModified);

    [Theory]
    [InlineData("GET")]
    [InlineData("HEAD")]
    [InlineData("PUT")]
    public void Evaluate_NoConditionalHeaders_Proceeds(string method)
    {
        Assert.Equal(PreconditionOutcome.Proceed, Evaluate(method));
    }

    // §13.1.1 If-Match

    [Fact]
    public void Evaluate_IfMatchOtherTag_PreconditionFailed()
    {
        Assert.Equal(PreconditionOutcome.PreconditionFailed, Evaluate("GET", ("If-Match", "\"v0\"")));
    }

    [Fact]
    public void Evaluate_IfMatchCurrentTag_Proceeds()
    {
        Assert.Equal(PreconditionOutcome.Proceed, Evaluate("GET", ("If-Match", "\"v1\"")));
    }

    [Fact]
    public void Evaluate_IfMatchStar_Proceeds()
    {
        Assert.Equal(PreconditionOutcome.Proceed, Evaluate("PUT", ("If-Match", "*")));
    }

    [Fact]
    public void Evaluate_IfMatchStarWithoutCurrentRepresentation_PreconditionFailed()
    {
        // §13.1.1: "*" is false when the origin server has no current representation.
        var outcome = Preconditions.Evaluate(Request("PUT", ("If-Match", "*")), entityTag: null, lastModified: null);

        Assert.Equal(PreconditionOutcome.PreconditionFailed, outcome);
    }

    [Fact]
    public void Evaluate_IfMatchWeakTagEqualToCurrent_PreconditionFailed()
    {
        // §13.1.1 uses the strong comparison (§8.8.3.2): a weak tag never matches.
        Assert.Equal(PreconditionOutcome.PreconditionFailed, Evaluate("GET", ("If-Match", "W/\"v1\"")));
    }

    [Fact]
    public void Evaluate_IfMatchListWhereSecondMatches_Proceeds()
    {
        Assert.Equal(PreconditionOutcome.Proceed, Evaluate("GET", ("If-Match", "\"a\", \"v1\"")));
    }

    [Fact]
    public void Evaluate_IfMatchTwoFieldLinesWhereSecondMatches_Proceeds()
    {
        // §5.3: a list split over several field lines is the same list.
        Assert.Equal(PreconditionOutcome.Proceed, Evaluate("GET", ("If-Match", "\"a\""), ("If-Match", "\"v1\"")));
    }

    [Fact]
    public void Evaluate_IfMatchListWithoutCurrentTag_PreconditionFailed()
    {
        Assert.Equal(PreconditionOutcome.PreconditionFailed, Evaluate("GET", ("If-Match", "\"a\", \"b\"")));
    }

    // §13.1.4 If-Unmodified-Since

    [Fact]
    public void Evaluate_IfUnmodifiedSinceBeforeLastModified_PreconditionFailed()
    {
        Assert.Equal(PreconditionOutcome.PreconditionFailed, Evaluate("GET", ("If-Unmodified-Since", Before)));
    }

    [Fact]
    public void Evaluate_IfUnmodifiedSinceEqualToLastModified_Proceeds()
    {
        Assert.Equal(PreconditionOutcome.Proceed, Evaluate("GET", ("If-Unmodified-Since", Same)));
    }

    [Fact]
    public void Evaluate_IfUnmodifiedSinceAfterLastModified_Proceeds()
    {
        Assert.Equal(PreconditionOutcome.Proceed, Evaluate("PUT", ("If-Unmodified-Since", After)));
    }

    [Fact]
    public void Evaluate_IfUnmodifiedSinceInvalidDate_IsIgnored()
    {
        // §13.1.4: "the recipient MUST ignore the If-Unmodified-Since header field if the received field value is not a valid HTTP-date".
        Assert.Equal(PreconditionOutcome.Proceed, Evaluate("GET", ("If-Unmodified-Since", "yesterday")));
    }

    [Fact]
    public void Evaluate_IfMatchHoldsAndIfUnmodifiedSinceBefore_ProceedsBecauseIfMatchWins()
    {
        // §13.2.2 step 2 evaluates If-Unmodified-Since only when If-Match is absent.
        Assert.Equal(PreconditionOutcome.Proceed, Evaluate("GET", ("If-Match", "\"v1\""), ("If-Unmodified-Since", Before)));
    }

    // §13.1.2 If-None-Match

    [Theory]
    [InlineData("GET")]
    [InlineData("HEAD")]
    public void Evaluate_IfNoneMatchCurrentTagOnGetOrHead_NotModified(string method)
    {
        Assert.Equal(PreconditionOutcome.NotModified, Evaluate(method, ("If-None-Match", "\"v1\"")));
    }

    [Theory]
    [InlineData("PUT")]
    [InlineData("POST")]
    [InlineData("DELETE")]
    public void Evaluate_IfNoneMatchCurrentTagOnOtherMethod_PreconditionFailed(string method)
    {
        // §13.2.2 step 3: 304 for GET/HEAD, otherwise 412.
        Assert.Equal(PreconditionOutcome.PreconditionFailed, Evaluate(method, ("If-None-Match", "\"v1\"")));
    }

    [Fact]
    public void Evaluate_IfNoneMatchWeakTagEqualToCurrent_NotModified()
    {
        // §13.1.2 uses the weak comparison (§8.8.3.2): W/"v1" matches "v1".
        Assert.Equal(PreconditionOutcome.NotModified, Evaluate("GET", ("If-None-Match", "W/\"v1\"")));
    }

    [Fact]
    public void Evaluate_IfNoneMatchStar_NotModified()
    {
        Assert.Equal(PreconditionOutcome.NotModified, Evaluate("GET", ("If-None-Match", "*")));
    }

    [Fact]
    public void Evaluate_IfNoneMatchListWhereSecondMatches_NotModified()
    {
        Assert.Equal(PreconditionOutcome.NotModified, Evaluate("GET", ("If-None-Match", "\"a\", \"v1\"")));
    }

    [Fact]
    public void Evaluate_IfNoneMatchOtherTag_Proceeds()
    {
        Assert.Equal(PreconditionOutcome.Proceed, Evaluate("GET", ("If-None-Match", "\"v0\"")));
    }

    [Fact]
    public void Evaluate_IfNoneMatchOtherTagAndIfModifiedSinceInTheFuture_ProceedsBecauseIfModifiedSinceIsIgnored()
    {
        // §13.1.3: "A recipient MUST ignore If-Modified-Since if the request contains an If-None-Match header field".
        Assert.Equal(PreconditionOutcome.Proceed, Evaluate("GET", ("If-None-Match", "\"v0\""), ("If-Modified-Since", After)));
    }

    [Fact]
    public void Evaluate_IfNoneMatchCurrentTagAndIfModifiedSinceBefore_NotModified()
    {
        Assert.Equal(PreconditionOutcome.NotModified, Evaluate("GET", ("If-None-Match", "\"v1\""), ("If-Modified-Since", Before)));
    }

    [Theory]
    [InlineData("v1")]
    [InlineData("\"v1")]
    [InlineData("\"v1\" garbage")]
    public void Evaluate_MalformedIfNoneMatch_Proceeds(string value)
    {
        Assert.Equal(PreconditionOutcome.Proceed, Evaluate("GET", ("If-None-Match", value)));
    }

    [Fact]
    public void Evaluate_IfMatchFailsAndIfNoneMatchMatches_PreconditionFailedBecauseIfMatchIsFirst()
    {
        // §13.2.2: step 1 decides before step 3 is reached.
        Assert.Equal(PreconditionOutcome.PreconditionFailed, Evaluate("GET", ("If-Match", "\"v0\""), ("If-None-Match", "\"v1\"")));
    }

    // §13.1.3 If-Modified-Since

    [Theory]
    [InlineData("GET")]
    [InlineData("HEAD")]
    public void Evaluate_IfModifiedSinceEqualToLastModified_NotModified(string method)
    {
        Assert.Equal(PreconditionOutcome.NotModified, Evaluate(method, ("If-Modified-Since", Same)));
    }

    [Fact]
    public void Evaluate_IfModifiedSinceAfterLastModified_NotModified()
    {
        Assert.Equal(PreconditionOutcome.NotModified, Evaluate("GET", ("If-Modified-Since", After)));
    }

    [Fact]
    public void Evaluate_IfModifiedSinceBeforeLastModified_Proceeds()
    {
        Assert.Equal(PreconditionOutcome.Proceed, Evaluate("GET", ("If-Modified-Since", Before)));
    }

    [Theory]
    [InlineData("POST")]
    [InlineData("PUT")]
    public void Evaluate_IfModifiedSinceOnUnsafeMethod_IsIgnored(string method)
    {
        // §13.1.3: "A recipient MUST ignore the If-Modified-Since header field ... if the request method is neither GET nor HEAD".
        Assert.Equal(PreconditionOutcome.Proceed, Evaluate(method, ("If-Modified-Since", After)));
    }

    [Fact]
    public void Evaluate_IfModifiedSinceInvalidDate_IsIgnored()
    {
        Assert.Equal(PreconditionOutcome.Proceed, Evaluate("GET", ("If-Modified-Since", "not a date")));
    }

    [Fact]
    public void Evaluate_IfModifiedSinceWithoutLastModified_Proceeds()
    {
        var outcome = Preconditions.Evaluate(Request("GET", ("If-Modified-Since", After)), Tag, lastModified: null);

        Assert.Equal(PreconditionOutcome.Proceed, outcome);
    }
}
