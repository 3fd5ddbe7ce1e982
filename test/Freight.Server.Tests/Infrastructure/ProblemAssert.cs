using System.Net;
using System.Text.Json;

namespace Freight.Server.Tests.Infrastructure;

/// <summary>Checks an error answer is an RFC 9457 problem with the expected status.</summary>
internal static class ProblemAssert
{
    public static async Task IsProblemAsync(HttpResponseMessage response, HttpStatusCode status)
    {
        var body = await response.Content.ReadAsStringAsync();
        Assert.True(status == response.StatusCode, $"expected {(int)status}, got {(int)response.StatusCode}: {body}");
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        IsProblemBody(body, status);
    }

    public static void IsProblem(RawHttpResponse response, HttpStatusCode status)
    {
        Assert.True((int)status == response.StatusCode, $"expected {(int)status}, got {response.StatusCode}: {response.BodyText}");
        Assert.StartsWith("application/problem+json", response.Header("Content-Type"), StringComparison.Ordinal);
        IsProblemBody(response.BodyText, status);
    }

    /// <summary>
    /// What <c>UseFreightProblems()</c> makes of an answer routing gave without a body (404, 405, 415): a problem whose
    /// type is RFC 9110's section for the status and whose title is the status's reason phrase (ASP.NET Core's defaults).
    /// </summary>
    public static void IsRoutingProblem(RawHttpResponse response, HttpStatusCode status)
    {
        IsProblem(response, status);
        using var problem = JsonDocument.Parse(response.BodyText);
        var section = status switch
        {
            HttpStatusCode.NotFound => "15.5.5",
            HttpStatusCode.MethodNotAllowed => "15.5.6",
            HttpStatusCode.UnsupportedMediaType => "15.5.16",
            _ => throw new ArgumentOutOfRangeException(nameof(status), status, "routing answers 404, 405 or 415 alone"),
        };
        Assert.Equal("https://tools.ietf.org/html/rfc9110#section-" + section, problem.RootElement.GetProperty("type").GetString());
        Assert.Equal(Microsoft.AspNetCore.WebUtilities.ReasonPhrases.GetReasonPhrase((int)status), problem.RootElement.GetProperty("title").GetString());
    }

    private static void IsProblemBody(string body, HttpStatusCode status)
    {
        using var problem = JsonDocument.Parse(body);
        Assert.Equal((int)status, problem.RootElement.GetProperty("status").GetInt32());
        Assert.False(string.IsNullOrWhiteSpace(problem.RootElement.GetProperty("title").GetString()));
        // Every problem says where its status is defined (RFC 9457 §3.1.1), those ASP.NET Core has no table entry for too.
        Assert.StartsWith("https://", problem.RootElement.GetProperty("type").GetString(), StringComparison.Ordinal);
    }
}
