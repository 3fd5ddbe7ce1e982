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

    private static void IsProblemBody(string body, HttpStatusCode status)
    {
        using var problem = JsonDocument.Parse(body);
        Assert.Equal((int)status, problem.RootElement.GetProperty("status").GetInt32());
        Assert.False(string.IsNullOrWhiteSpace(problem.RootElement.GetProperty("title").GetString()));
    }
}
