using Freight.Bench.Client;

namespace Freight.Bench.Tests.Client;

public sealed class ProblemTextTests
{
    [Theory]
    [InlineData("application/problem+json", """{"title":"Digest mismatch","detail":"Content-Digest sha-256 differs","status":400}""", "Digest mismatch: Content-Digest sha-256 differs")]
    [InlineData("application/problem+json", """{"title":"Precondition Failed","status":412}""", "Precondition Failed")]
    [InlineData("application/json", """{"detail":"only a detail"}""", "only a detail")]
    [InlineData("application/json", """[1,2]""", null)]
    [InlineData("text/plain", "not found\nsecond line", "not found")]
    [InlineData("text/html", "", null)]
    [InlineData("application/octet-stream", "\u0001\u0002", null)]
    public void Describe_Body_OneLine(string mediaType, string body, string? expected)
    {
        Assert.Equal(expected, ProblemText.Describe(mediaType, body));
    }
}
