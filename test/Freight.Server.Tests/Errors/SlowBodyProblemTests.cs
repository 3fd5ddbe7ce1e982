using System.Net;
using System.Text.Json;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using Microsoft.Extensions.Logging;

namespace Freight.Server.Tests.Errors;

/// <summary>
/// An upload cut for arriving under the minimum rate is a 408 whose title says so and whose detail names Freight's
/// option and its value: Kestrel's message named its own key (MinRequestBodyDataRate), which serve refuses.
/// </summary>
public sealed class SlowBodyProblemTests(FileSystemFilesServer server) : IClassFixture<FileSystemFilesServer>
{
    // A bounded wait for the server to log, not a timing assertion.
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task Put_BodyStallsUnderTheMinimumRate_RequestTimeoutNamingFreightsOption()
    {
        var key = FilesApi.NewRoot() + "/stalled.bin";
        await using var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);
        await connection.SendAsync(RawHttpConnection.Head("PUT", server.HttpAddress, "/files/" + key, "Content-Length: 1048576"));
        await connection.SendAsync(new byte[1000]);

        // Nothing more is sent: past the 5 s grace the body is far under 64 KiB/s.
        var response = await connection.ReadResponseAsync();

        ProblemAssert.IsProblem(response, HttpStatusCode.RequestTimeout);
        using var problem = JsonDocument.Parse(response.BodyText);
        Assert.Equal("Request timeout", problem.RootElement.GetProperty("title").GetString());
        var detail = problem.RootElement.GetProperty("detail").GetString();
        Assert.StartsWith("The body arrived slower than 65536 bytes/s (Freight:Files:MinUploadBytesPerSecond)", detail, StringComparison.Ordinal);
        Assert.DoesNotContain("MinRequestBodyDataRate", detail, StringComparison.Ordinal);
        Assert.False(File.Exists(server.DiskPath(key)));
    }

    [Fact]
    public async Task Put_Http2BodyUnderTheMinimumRate_LoggedOnceAsTheServersCutNotAsTheClientLeaving()
    {
        // Kestrel enforces the rate on HTTP/2 per connection and aborts the whole connection (GOAWAY, no answer): the app
        // sees its body read fail as if the client had gone. Its own client: the cut takes the shared connection down too.
        var key = FilesApi.NewRoot() + "/trickled.bin";
        var mark = server.Logs.Count;
        using var client = ServerHarness.CreatePinnedClient(server.CertificateFingerprint);
        using var request = server.Request(HttpMethod.Put, Protocol.Http2, "/files/" + key);
        using var trickle = new TrickleContent(totalBytes: 1024 * 1024, bytesPerWrite: 1024, pause: TimeSpan.FromMilliseconds(100));
        request.Content = trickle;

        // 10 KiB/s, far under 64 KiB/s: past the 5 s grace Kestrel cuts the connection. The client reads no answer (a
        // reset, or its body's send canceled by the GOAWAY).
        await Assert.ThrowsAnyAsync<Exception>(() => client.SendAsync(request));

        var path = "/files/" + key;
        var deadline = DateTime.UtcNow + s_patience;
        while (!server.Logs.Since(mark).Any(log => log.Message.Contains(path, StringComparison.Ordinal)) && DateTime.UtcNow < deadline)
        {
            await Task.Delay(50);
        }

        var lines = server.Logs.Since(mark, LogLevel.Debug).Where(log => log.Message.Contains(path, StringComparison.Ordinal)).ToList();
        // Kestrel passes its reason on to the request only when its frame loop was waiting for input as it cut (about every
        // other run): then the line says so; else it names the rate as the likely cause, and the client as the other.
        var line = Assert.Single(lines);
        Assert.True(line.Level == LogLevel.Information, line.ToString());
        Assert.Matches(
            "^PUT /files/t[0-9a-f]+/trickled.bin: (cut off by the server, unanswered: |its HTTP/2 connection closed, unanswered: cut off by the server if this held: )"
            + System.Text.RegularExpressions.Regex.Escape("The body arrived slower than 65536 bytes/s (Freight:Files:MinUploadBytesPerSecond)"),
            line.Message);
        Assert.False(File.Exists(server.DiskPath(key)));
        await server.AssertServingAsync();
    }

    [Fact]
    public async Task Put_Http2ClientCancelsPastTheGracePeriod_LoggedAsTheClientGoingAway()
    {
        // Fast enough for the minimum rate, cancelled by the client (RST_STREAM) after the grace period: no server's cut.
        var key = FilesApi.NewRoot() + "/cancelled.bin";
        var path = "/files/" + key;
        var mark = server.Logs.Count;
        using var client = ServerHarness.CreatePinnedClient(server.CertificateFingerprint);
        using var request = server.Request(HttpMethod.Put, Protocol.Http2, path);
        using var flowing = new TrickleContent(totalBytes: 1024 * 1024 * 1024, bytesPerWrite: 64 * 1024, pause: TimeSpan.FromMilliseconds(10));
        request.Content = flowing;
        using var cancel = new CancellationTokenSource(TimeSpan.FromSeconds(6));

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => client.SendAsync(request, cancel.Token));

        var deadline = DateTime.UtcNow + s_patience;
        while (!server.Logs.Since(mark).Any(log => log.Message.Contains(path, StringComparison.Ordinal)) && DateTime.UtcNow < deadline)
        {
            await Task.Delay(50);
        }

        var line = Assert.Single(server.Logs.Since(mark, LogLevel.Debug), log => log.Message.Contains(path, StringComparison.Ordinal));
        Assert.StartsWith(path + ": the client went away", line.Message.Split(' ', 2)[1], StringComparison.Ordinal);
        Assert.False(File.Exists(server.DiskPath(key)));
    }

    /// <summary>A body of a known length sent a little at a time, until its request is cancelled.</summary>
    private sealed class TrickleContent(int totalBytes, int bytesPerWrite, TimeSpan pause) : HttpContent
    {
        protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context) => SerializeToStreamAsync(stream, context, CancellationToken.None);

        protected override async Task SerializeToStreamAsync(Stream stream, TransportContext? context, CancellationToken cancellationToken)
        {
            var chunk = new byte[bytesPerWrite];
            for (var sent = 0; sent < totalBytes; sent += bytesPerWrite)
            {
                await stream.WriteAsync(chunk, cancellationToken);
                await stream.FlushAsync(cancellationToken);
                await Task.Delay(pause, cancellationToken);
            }
        }

        protected override bool TryComputeLength(out long length)
        {
            length = totalBytes;
            return true;
        }
    }
}
