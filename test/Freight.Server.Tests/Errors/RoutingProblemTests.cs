using System.Net;
using System.Text;
using Freight.AspNetCore.Errors;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Library;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Errors;

/// <summary>
/// What routing answers before any handler runs — a Content-Type a route does not accept (415), a method it lacks
/// (405), no route at all (404) — is problem+json in <c>freight serve</c> through <c>UseFreightProblems()</c> alone (no
/// status code pages), logged once; raw HTTP/1.1, so nothing between the test and the bytes on the wire.
/// </summary>
public sealed class RoutingProblemTests(BuildingBlocksServer server) : IClassFixture<BuildingBlocksServer>
{
    [Fact]
    public async Task Post_TextToAStreamingMultipartRoute_Answers415ProblemLoggedOnce()
    {
        var mark = server.Logs.Count;

        var response = await RawAsync(server.HttpAddress,
            RawHttpConnection.Head("POST", server.HttpAddress, "/my/photos", "Content-Type: text/plain", "Content-Length: 5"),
            Encoding.ASCII.GetBytes("hello"));

        ProblemAssert.IsRoutingProblem(response, HttpStatusCode.UnsupportedMediaType);
        var logged = Assert.Single(server.Logs.Since(mark));
        Assert.Equal(typeof(ProblemMiddleware).FullName, logged.Category);
        Assert.Equal(Microsoft.Extensions.Logging.LogLevel.Information, logged.Level);
        Assert.Contains("POST /my/photos rejected with 415", logged.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Delete_OnAPostOnlyRoute_Answers405ProblemWithAllow()
    {
        var response = await RawAsync(server.HttpAddress, RawHttpConnection.Head("DELETE", server.HttpAddress, "/my/photos"));

        ProblemAssert.IsRoutingProblem(response, HttpStatusCode.MethodNotAllowed);
        Assert.Equal("POST", response.Header("Allow"));
    }

    [Fact]
    public async Task Get_UnknownRoute_Answers404ProblemLoggedOnce()
    {
        var mark = server.Logs.Count;

        var response = await RawAsync(server.HttpAddress, RawHttpConnection.Head("GET", server.HttpAddress, "/nowhere/at/all"));

        ProblemAssert.IsRoutingProblem(response, HttpStatusCode.NotFound);
        using var problem = System.Text.Json.JsonDocument.Parse(response.BodyText);
        Assert.Equal("GET /nowhere/at/all: no route matches the path.", problem.RootElement.GetProperty("detail").GetString());
        var logged = Assert.Single(server.Logs.Since(mark));
        // The line names the client, and the trace id the body carries, so that a client's report finds it.
        Assert.Contains($"(client 127.0.0.1, trace {problem.RootElement.GetProperty("traceId").GetString()})", logged.Message, StringComparison.Ordinal);
        Assert.Equal(typeof(ProblemMiddleware).FullName, logged.Category);
        Assert.Equal(Microsoft.Extensions.Logging.LogLevel.Information, logged.Level);
        Assert.Contains("GET /nowhere/at/all rejected with 404", logged.Message, StringComparison.Ordinal);
    }
}
