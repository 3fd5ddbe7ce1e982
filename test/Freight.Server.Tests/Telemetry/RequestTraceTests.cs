using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Text.Json;
using System.Text.RegularExpressions;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using Microsoft.Extensions.Logging;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Telemetry;

/// <summary>
/// The <c>traceId</c> a problem body carries and Freight's log lines repeat, with serve's default logging (hosting's
/// per-request logger off, so ASP.NET Core makes no activity unless a listener asks for one): a client's W3C
/// <c>traceparent</c> continues (its trace id), else Kestrel's request id; with a listener on ASP.NET Core, the
/// request's activity, a child of the client's span. In the telemetry collection: the listener here is process-wide.
/// </summary>
[Collection(TelemetryCollection.Name)]
public sealed partial class RequestTraceTests(FileSystemFilesServer server) : IClassFixture<FileSystemFilesServer>
{
    private const string ClientTraceId = "0af7651916cd43dd8448eb211c80319c";
    private const string ClientSpanId = "b7ad6b7169203331";
    private const string TraceParent = $"00-{ClientTraceId}-{ClientSpanId}-01";

    // A bounded wait for the server to log, not a timing assertion.
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task Refusal_ClientSentTraceparent_ProblemAndLogLineCarryItsTraceId()
    {
        var key = $"{NewRoot()}/missing.bin";
        var mark = server.Logs.Count;

        using var response = await SendAsync(server, HttpMethod.Get, "/files/" + key, ("traceparent", TraceParent));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
        Assert.Equal(ClientTraceId, await TraceIdOfAsync(response));
        Assert.Contains($"(client 127.0.0.1, trace {ClientTraceId})", RefusalLine(mark, key), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("00-not-a-trace-01")]
    public async Task Refusal_NoValidTraceparent_ProblemAndLogLineCarryKestrelsRequestId(string? traceParent)
    {
        var key = $"{NewRoot()}/missing.bin";
        var mark = server.Logs.Count;

        using var response = await SendAsync(server, HttpMethod.Get, "/files/" + key, traceParent is null ? [] : [("traceparent", traceParent)]);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
        var traceId = await TraceIdOfAsync(response);
        Assert.Matches(KestrelRequestId(), traceId);
        Assert.Contains($"(client 127.0.0.1, trace {traceId})", RefusalLine(mark, key), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Refusal_ListenerOnAspNetCore_ProblemCarriesTheRequestsActivityInTheClientsTrace()
    {
        var key = $"{NewRoot()}/missing.bin";
        using var listener = new ActivityListener
        {
            ShouldListenTo = source => source.Name == "Microsoft.AspNetCore",
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
        };
        ActivitySource.AddActivityListener(listener);
        var mark = server.Logs.Count;

        using var response = await SendAsync(server, HttpMethod.Get, "/files/" + key, ("traceparent", TraceParent));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
        // The whole traceparent of the server's span: the client's trace, a span of its own.
        var traceId = await TraceIdOfAsync(response);
        Assert.Matches($"^00-{ClientTraceId}-[0-9a-f]{{16}}-01$", traceId);
        Assert.DoesNotContain(ClientSpanId, traceId, StringComparison.Ordinal);
        Assert.Contains($"(client 127.0.0.1, trace {traceId})", RefusalLine(mark, key), StringComparison.Ordinal);
    }

    [Fact]
    public async Task ClientGoesAway_LineCarriesTheClientAndTheTraceIdAsTheOthersDo()
    {
        var key = $"{NewRoot()}/gone.bin";
        var mark = server.Logs.Count;
        await using (var connection = await RawHttpConnection.OpenAsync(server.HttpAddress))
        {
            await connection.SendAsync(RawHttpConnection.Head("PUT", server.HttpAddress, "/files/" + key, "Content-Length: " + (40_000).ToString(CultureInfo.InvariantCulture), "traceparent: " + TraceParent));
            await connection.SendAsync(new byte[1000]);
            await Task.Delay(100); // the body has begun to arrive before the client goes
            connection.Close();
        }

        var line = await LineAsync(mark, log => log.Message.StartsWith($"PUT /files/{key}: the client went away (", StringComparison.Ordinal));
        Assert.EndsWith($"; client 127.0.0.1, trace {ClientTraceId})", line, StringComparison.Ordinal);
        await server.AssertServingAsync();
    }

    private static async Task<string?> TraceIdOfAsync(HttpResponseMessage response)
    {
        using var problem = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        return problem.RootElement.GetProperty("traceId").GetString();
    }

    private string RefusalLine(int mark, string key) =>
        Assert.Single(server.Logs.Since(mark), log => log.Level == LogLevel.Information && log.Message.StartsWith($"GET /files/{key} rejected with 404", StringComparison.Ordinal)).Message;

    private async Task<string> LineAsync(int mark, Func<CapturedLog, bool> match)
    {
        var deadline = DateTime.UtcNow + s_patience;
        while (!server.Logs.Since(mark).Any(match) && DateTime.UtcNow < deadline)
        {
            await Task.Delay(50);
        }

        return Assert.Single(server.Logs.Since(mark), log => match(log)).Message;
    }

    /// <summary>Kestrel's TraceIdentifier: its connection id, a colon, the request's number on the connection.</summary>
    [GeneratedRegex("^[0-9A-Z]{13}:[0-9A-F]{8}$")]
    private static partial Regex KestrelRequestId();
}
