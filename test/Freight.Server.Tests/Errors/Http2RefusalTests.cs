using System.Net;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using Microsoft.Extensions.Logging;

namespace Freight.Server.Tests.Errors;

/// <summary>
/// A refused upload's answer closes an HTTP/1.1 connection (its body is not drained), but carries no Connection field
/// on HTTP/2, where there is none: Kestrel removed it and logged a warning (Kestrel[41]) for every refusal.
/// </summary>
public sealed class Http2RefusalTests(FileSystemFilesServer server) : IClassFixture<FileSystemFilesServer>
{
    [Fact]
    public async Task Put_RefusedOverHttp2_NoConnectionFieldAndNoKestrelWarning()
    {
        var mark = server.Logs.Count;
        using var request = server.Request(HttpMethod.Put, Protocol.Http2, $"/files/{FilesApi.NewRoot()}/refused.bin");
        request.Content = new ByteArrayContent(FilesApi.Content(4096));
        request.Headers.TryAddWithoutValidation("If-Match", "\"no-such-version\"");

        using var response = await server.Client.SendAsync(request);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.PreconditionFailed);
        Assert.Empty(response.Headers.Connection);
        Assert.DoesNotContain(server.Logs.Since(mark, LogLevel.Warning), log => log.Category.StartsWith("Microsoft.AspNetCore.Server.Kestrel", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Put_RefusedOverHttp11_ConnectionClose()
    {
        using var request = server.Request(HttpMethod.Put, Protocol.Http11, $"/files/{FilesApi.NewRoot()}/refused.bin");
        request.Content = new ByteArrayContent(FilesApi.Content(4096));
        request.Headers.TryAddWithoutValidation("If-Match", "\"no-such-version\"");

        using var response = await server.Client.SendAsync(request);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.PreconditionFailed);
        Assert.True(response.Headers.ConnectionClose);
    }
}
