using System.Text.Json;

namespace Freight.Tests.Files;

/// <summary>
/// What <c>{*path}</c> hands to StorageKey on real Kestrel: percent-decoded except %2F, dot segments
/// already removed, '//' and a trailing '/' kept.
/// </summary>
public sealed class StorageKeyRouteTests(KeyEchoServer server) : IClassFixture<KeyEchoServer>
{
    private async Task<string> DetailOf400Async(string target)
    {
        var (status, body) = await server.GetAsync(target);

        Assert.Equal(400, status);
        using var problem = JsonDocument.Parse(body);
        return problem.RootElement.GetProperty("detail").GetString()!;
    }

    [Theory]
    [InlineData("/files/a/b.txt", "a/b.txt")]
    [InlineData("/files/a%20b/c%2Bd.txt", "a b/c+d.txt")]
    [InlineData("/files/%C3%A9t%C3%A9.txt", "\u00E9t\u00E9.txt")]
    [InlineData("/files/e%CC%81.txt", "e\u0301.txt")]            // NFD stays NFD
    [InlineData("/files/100%25.txt", "100%.txt")]
    [InlineData("/files/a/%2E%2E/b.txt", "b.txt")]              // Kestrel resolved the dot segment
    [InlineData("/files/a/./b.txt", "a/b.txt")]
    public async Task Get_ValidPath_RouteValueParsesToKey(string target, string key)
    {
        var (status, body) = await server.GetAsync(target);

        Assert.Equal(200, status);
        Assert.Equal(key, body);
    }

    [Theory]
    [InlineData("/files/a%2Fb.txt")]
    [InlineData("/files/a%2fb.txt")]
    [InlineData("/files/a%252Fb.txt")]                          // arrives as the same "a%2Fb.txt"
    [InlineData("/files/..%2F..%2Fetc%2Fpasswd")]
    public async Task Get_EncodedSlash_KeptEncodedByKestrelAndRejected(string target)
    {
        Assert.Contains("'%2F'", await DetailOf400Async(target), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("/files/a//b", "is empty ('//')")]
    [InlineData("/files/a/b/", "must not end with '/'")]
    [InlineData("/files/a%5Cb", "backslash")]
    [InlineData("/files/a\\b", "backslash")]
    [InlineData("/files/a%01b", "control character U+0001")]
    [InlineData("/files/a%7Fb", "control character U+007F")]
    [InlineData("/files/a%C2%85b", "control character U+0085")]
    [InlineData("/files/.x.freight-meta", "reserved")]
    public async Task Get_PathBreakingRule_ProblemDetailNamesIt(string target, string reason)
    {
        Assert.Contains(reason, await DetailOf400Async(target), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Get_EncodedNul_RefusedByKestrelBeforeRouting()
    {
        var (status, body) = await server.GetAsync("/files/a%00b");

        Assert.Equal(400, status);
        Assert.DoesNotContain("detail", body, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("/files/../etc/passwd")]
    [InlineData("/files/%2E%2E/etc/passwd")]
    public async Task Get_DotDotAboveFiles_ResolvedOutOfTheRoute(string target)
    {
        // Kestrel removes the dot segments first: the request becomes /etc/passwd, which no route matches.
        var (status, _) = await server.GetAsync(target);

        Assert.Equal(404, status);
    }
}
