using System.Net;
using System.Net.Http.Headers;
using Freight.AspNetCore.Errors;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Tus;
using Freight.Telemetry;
using Microsoft.Extensions.Logging;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Telemetry;

/// <summary>
/// An upload refused for its token is a refused upload: counted with the reason <c>unauthorized</c> (401: none, or one
/// the server does not know) or <c>forbidden</c> (403: a read token writing), and its log line names the client.
/// </summary>
[Collection(TelemetryCollection.Name)]
public sealed class TokenRefusalTelemetryTests(TokenTusServer server) : IClassFixture<TokenTusServer>
{
    private static readonly (string, string) s_unauthorized = (FreightTelemetry.RefusalReasonTag, "unauthorized");
    private static readonly (string, string) s_forbidden = (FreightTelemetry.RefusalReasonTag, "forbidden");

    [Fact]
    public async Task Put_WithoutTokenAndWithReadToken_CountedAsRefusedUnauthorizedAndForbidden()
    {
        using var telemetry = new TelemetryRecorder();

        using var anonymous = Put(server, $"{NewRoot()}/a.bin", Content(1000));
        using var refused = await server.Client.SendAsync(anonymous);
        using var reading = Put(server, $"{NewRoot()}/b.bin", Content(1000));
        reading.Headers.Authorization = new AuthenticationHeaderValue("Bearer", TokenTusServer.ReadToken);
        using var forbidden = await server.Client.SendAsync(reading);

        await ProblemAssert.IsProblemAsync(refused, HttpStatusCode.Unauthorized);
        await ProblemAssert.IsProblemAsync(forbidden, HttpStatusCode.Forbidden);
        var put = (FreightTelemetry.ProtocolTag, "put");
        Assert.Equal(1, telemetry.Sum("freight.upload.refused", put, s_unauthorized));
        Assert.Equal(1, telemetry.Sum("freight.upload.refused", put, s_forbidden));
        Assert.Equal(2, telemetry.Sum("freight.upload.started", put));
        Assert.Equal(0, telemetry.Sum("freight.active_uploads"));
    }

    [Fact]
    public async Task TusPatch_WithoutToken_CountedAsRefusedUnauthorized()
    {
        using var telemetry = new TelemetryRecorder();
        using var request = TusApi.Request(server, HttpMethod.Patch, "/tus/" + new string('a', 32), Protocol.Http2);
        request.Content = TusApi.Body(Content(1000));
        request.Headers.Add("Upload-Offset", "0");

        using var response = await server.Client.SendAsync(request);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.Unauthorized);
        Assert.Equal(1, telemetry.Sum("freight.upload.refused", (FreightTelemetry.ProtocolTag, "tus"), s_unauthorized));
    }

    [Fact]
    public async Task Put_WithoutToken_LogLineNamesTheClient()
    {
        var key = $"{NewRoot()}/c.bin";
        var mark = server.Logs.Count;

        using var request = Put(server, key, Content(1000));
        using var response = await server.Client.SendAsync(request);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.Unauthorized);
        var logged = Assert.Single(server.Logs.Since(mark), log => log.Category == typeof(ProblemMiddleware).FullName);
        Assert.Equal(LogLevel.Information, logged.Level);
        Assert.StartsWith($"PUT /files/{key} rejected with 401: ", logged.Message, StringComparison.Ordinal);
        Assert.Contains("(client 127.0.0.1, trace ", logged.Message, StringComparison.Ordinal);
    }
}
