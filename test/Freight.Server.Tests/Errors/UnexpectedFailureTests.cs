using System.Net;
using System.Text;
using Freight.AspNetCore.Errors;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Library;
using Microsoft.Extensions.Logging;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Errors;

/// <summary>
/// An exception no handler answered is the server's failure, not the client's: with <c>UseFreightProblems()</c> it is
/// a 500 problem that tells the client nothing of it (Kestrel alone answered a bare 500), logged once at Error with
/// the exception, and the server keeps serving.
/// </summary>
public sealed class UnexpectedFailureTests(BuildingBlocksServer server) : IClassFixture<BuildingBlocksServer>
{
    [Fact]
    public async Task Get_RouteThatThrows_500ProblemWithoutTheExceptionLoggedOnceAtError()
    {
        var mark = server.Logs.Count;

        var response = await RawAsync(server.HttpAddress, RawHttpConnection.Head("GET", server.HttpAddress, "/my/fails"));

        ProblemAssert.IsProblem(response, HttpStatusCode.InternalServerError);
        Assert.DoesNotContain("secret", response.BodyText, StringComparison.Ordinal);
        var logged = Assert.Single(server.Logs.Since(mark));
        Assert.Equal(typeof(ProblemMiddleware).FullName, logged.Category);
        Assert.Equal(LogLevel.Error, logged.Level);
        Assert.Contains("GET /my/fails failed", logged.Message, StringComparison.Ordinal);
        Assert.Contains("a secret of the app's own", logged.Message, StringComparison.Ordinal);
        using var problem = System.Text.Json.JsonDocument.Parse(response.BodyText);
        Assert.Contains($"(trace {problem.RootElement.GetProperty("traceId").GetString()})", logged.Message, StringComparison.Ordinal);
        await server.AssertServingAsync();
    }

    [Fact]
    public async Task Post_RouteThatThrowsBeforeReadingTheBody_500ProblemAndTheConnectionCloses()
    {
        var response = await RawAsync(server.HttpAddress,
            RawHttpConnection.Head("POST", server.HttpAddress, "/my/fails", "Content-Type: text/plain", "Content-Length: 5"),
            Encoding.ASCII.GetBytes("hello"));

        ProblemAssert.IsProblem(response, HttpStatusCode.InternalServerError);
        Assert.Equal("close", response.Header("Connection"));
    }
}
