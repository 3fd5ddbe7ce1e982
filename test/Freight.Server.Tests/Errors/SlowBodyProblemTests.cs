using System.Net;
using System.Security.Cryptography;
using System.Text.Json;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Tus;
using Microsoft.Extensions.Logging;

namespace Freight.Server.Tests.Errors;

/// <summary>
/// An upload cut for arriving under the minimum rate is a 408 whose title says so and whose detail names Freight's
/// option and its value: Kestrel's message named its own key (MinRequestBodyDataRate), which serve refuses.
/// </summary>
public sealed class SlowBodyProblemTests(FileSystemTusServer server) : IClassFixture<FileSystemTusServer>
{
    // A bounded wait for the server to log, not a timing assertion.
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(10);

    // A bound on a request the server should cut within seconds: a failure, not a hang, where it does not.
    private static readonly TimeSpan s_bound = TimeSpan.FromSeconds(40);

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
    public async Task Put_Http2BodyUnderTheMinimumRate_A408ProblemForThatStreamLoggedOnceAsARefusal()
    {
        // Kestrel held HTTP/2 to the rate per connection and aborted the whole connection, unanswered: Freight holds each
        // of its uploads' streams to it instead, and answers the stream the 408 an HTTP/1.1 request gets.
        var key = FilesApi.NewRoot() + "/trickled.bin";
        var path = "/files/" + key;
        var mark = server.Logs.Count;
        using var client = ServerHarness.CreatePinnedClient(server.CertificateFingerprint);
        using var request = server.Request(HttpMethod.Put, Protocol.Http2, path);
        // 10 KiB/s, far under 64 KiB/s: past the 5 s grace the stream is cut.
        using var trickle = new TrickleContent(totalBytes: 1024 * 1024, bytesPerWrite: 1024, pause: TimeSpan.FromMilliseconds(100));
        request.Content = trickle;

        using var response = await client.SendAsync(request);

        await AssertTooSlowAsync(response);
        AssertRefusedOnce(mark, "PUT", path);
        Assert.False(File.Exists(server.DiskPath(key)));
        Assert.Empty(server.FilesTempFiles());
        await server.AssertServingAsync();
    }

    [Fact]
    public async Task Put_Http2BodyStallsAfterSomeBytes_A408ProblemForThatStream()
    {
        // Some bytes, then nothing: no read returns, so only a clock can cut it.
        var key = FilesApi.NewRoot() + "/stalled.bin";
        var path = "/files/" + key;
        var mark = server.Logs.Count;
        using var client = ServerHarness.CreatePinnedClient(server.CertificateFingerprint);
        using var request = server.Request(HttpMethod.Put, Protocol.Http2, path);
        request.Content = new PausedContent(FilesApi.Content(1000), resume: Task.Delay(Timeout.Infinite), rest: []);

        using var response = await client.SendAsync(request);

        await AssertTooSlowAsync(response);
        AssertRefusedOnce(mark, "PUT", path);
        Assert.False(File.Exists(server.DiskPath(key)));
    }

    [Fact]
    public async Task Put_Http2SlowStreamCut_AnotherUploadOnTheSameConnectionCompletes()
    {
        // Two PUTs multiplexed on one HTTP/2 connection (one client, one handler): a slow one and one that sends 1 MiB at
        // once, waits until the slow one is answered, then sends its second MiB. Kestrel's connection-wide cut took both.
        var slowKey = FilesApi.NewRoot() + "/slow.bin";
        var fastKey = FilesApi.NewRoot() + "/fast.bin";
        using var client = ServerHarness.CreatePinnedClient(server.CertificateFingerprint);
        using (var warm = await client.SendAsync(server.Request(HttpMethod.Get, Protocol.Http2, "/files/")))
        {
            Assert.Equal(new Version(2, 0), warm.Version);
        }

        var first = FilesApi.Content(1024 * 1024, seed: 7);
        var rest = FilesApi.Content(1024 * 1024, seed: 8);
        var slowAnswered = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var fastRequest = server.Request(HttpMethod.Put, Protocol.Http2, "/files/" + fastKey);
        fastRequest.Content = new PausedContent(first, slowAnswered.Task, rest);
        var fast = client.SendAsync(fastRequest);

        using var slowRequest = server.Request(HttpMethod.Put, Protocol.Http2, "/files/" + slowKey);
        using var trickle = new TrickleContent(totalBytes: 1024 * 1024, bytesPerWrite: 1024, pause: TimeSpan.FromMilliseconds(100));
        slowRequest.Content = trickle;
        using (var slow = await client.SendAsync(slowRequest).WaitAsync(s_bound))
        {
            slowAnswered.SetResult();
            await AssertTooSlowAsync(slow);
        }

        using var fastResponse = await fast.WaitAsync(s_bound);
        Assert.Equal(HttpStatusCode.Created, fastResponse.StatusCode);
        Assert.Equal(new Version(2, 0), fastResponse.Version);
        Assert.Equal(Convert.ToHexString(SHA256.HashData([.. first, .. rest])), Convert.ToHexString(SHA256.HashData(await File.ReadAllBytesAsync(server.DiskPath(fastKey)))));
        Assert.False(File.Exists(server.DiskPath(slowKey)));
    }

    [Fact]
    public async Task Patch_Http2TusBodyUnderTheMinimumRate_A408ProblemAndTheBytesStoredStay()
    {
        // 192 KiB at once, then nothing: a tus PATCH keeps what it stored, as when it is cut off, and goes on from HEAD's offset.
        var content = FilesApi.Content(1024 * 1024, seed: 9);
        var fileName = TusApi.NewFileName("slow.bin");
        var upload = await TusApi.CreateAsync(server, content.Length, fileName);
        var mark = server.Logs.Count;
        using var client = ServerHarness.CreatePinnedClient(server.CertificateFingerprint);
        using var request = TusApi.Request(server, HttpMethod.Patch, upload, Protocol.Http2);
        request.Content = new PausedContent(content[..(192 * 1024)], resume: Task.Delay(Timeout.Infinite), rest: []);
        request.Content.Headers.ContentType = new System.Net.Http.Headers.MediaTypeHeaderValue(TusApi.OffsetStream);
        request.Headers.Add("Upload-Offset", "0");

        using var response = await client.SendAsync(request);

        await AssertTooSlowAsync(response);
        AssertRefusedOnce(mark, "PATCH", upload);
        // Each whole batch read was stored (64 KiB or more); the one still gathering when the cut came is not.
        var offset = await TusApi.OffsetAsync(server, upload);
        Assert.InRange(offset, 128 * 1024, 192 * 1024);
        await TusApi.PatchAllAsync(server, upload, content, chunkSize: 1024 * 1024, from: offset);
        Assert.Equal(Convert.ToHexString(SHA256.HashData(content)), Convert.ToHexString(SHA256.HashData(await File.ReadAllBytesAsync(server.DiskPath(fileName)))));
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

    /// <summary>The minimum rate's 408 problem, naming Freight's option and its value, not Kestrel's.</summary>
    private static async Task AssertTooSlowAsync(HttpResponseMessage response)
    {
        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.RequestTimeout);
        using var problem = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        Assert.Equal("Request timeout", problem.RootElement.GetProperty("title").GetString());
        var detail = problem.RootElement.GetProperty("detail").GetString();
        Assert.StartsWith("The body arrived slower than 65536 bytes/s (Freight:Files:MinUploadBytesPerSecond)", detail, StringComparison.Ordinal);
        Assert.DoesNotContain("MinRequestBodyDataRate", detail, StringComparison.Ordinal);
    }

    /// <summary>The request's one log line: its refusal with 408, at Information, naming the option.</summary>
    private void AssertRefusedOnce(int mark, string method, string path)
    {
        var line = Assert.Single(server.Logs.Since(mark, LogLevel.Debug), log => log.Message.Contains(path, StringComparison.Ordinal));
        Assert.Equal(LogLevel.Information, line.Level);
        Assert.StartsWith(
            $"{method} {path} rejected with 408: The body arrived slower than 65536 bytes/s (Freight:Files:MinUploadBytesPerSecond)",
            line.Message,
            StringComparison.Ordinal);
    }

    /// <summary>A body sent in two parts: <paramref name="first"/> at once, <paramref name="rest"/> once <paramref name="resume"/> completes.</summary>
    private sealed class PausedContent(byte[] first, Task resume, byte[] rest) : HttpContent
    {
        protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context) => SerializeToStreamAsync(stream, context, CancellationToken.None);

        protected override async Task SerializeToStreamAsync(Stream stream, TransportContext? context, CancellationToken cancellationToken)
        {
            await stream.WriteAsync(first, cancellationToken);
            await stream.FlushAsync(cancellationToken);
            await resume.WaitAsync(cancellationToken);
            await stream.WriteAsync(rest, cancellationToken);
        }

        protected override bool TryComputeLength(out long length)
        {
            length = first.Length + rest.Length;
            return true;
        }
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
