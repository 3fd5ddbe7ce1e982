using System.Globalization;
using System.Net;
using System.Text;
using System.Text.Json;
using UploadLimiter = Freight.AspNetCore.Files.UploadLimiter;
using Freight.AspNetCore.Uploads;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using Freight.Storage;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Freight.Server.Tests.Hosting;

/// <summary>
/// Stopping the server (SIGTERM, Ctrl+C: the host's StopAsync) with uploads in flight. It says so once, waits up to
/// Freight:ShutdownTimeout for them, and answers those still running at its end 503 "Server stopping", logged as the
/// stop's doing at Warning: not a client that went away, not a 500 with a stack, nothing of a PUT stored.
/// </summary>
public sealed class StopTests
{
    [Fact]
    public async Task Stop_UploadsStillStreamingAtTheTimeout_AnsweredServerStoppingAndNothingStored()
    {
        var server = new StoppingServer();
        await server.InitializeAsync();
        var released = new TaskCompletionSource();
        try
        {
            var key = FilesApi.NewRoot() + "/cut.bin";

            // HTTP/1.1 PUT over a raw socket: a 1 MiB body of which 1000 bytes come.
            await using var put = await RawHttpConnection.OpenAsync(server.HttpAddress);
            await put.SendAsync(RawHttpConnection.Head("PUT", server.HttpAddress, "/files/" + key, "Content-Length: 1048576"));
            await put.SendAsync(new byte[1000]);

            // HTTP/2 tus PATCH: 1000 bytes of 1 MiB, then the body waits.
            using var create = server.Request(HttpMethod.Post, Protocol.Http2, "/tus/");
            create.Headers.Add("Tus-Resumable", "1.0.0");
            create.Headers.Add("Upload-Length", "1048576");
            using var created = await server.Client.SendAsync(create);
            Assert.Equal(HttpStatusCode.Created, created.StatusCode);
            using var patch = server.Request(HttpMethod.Patch, Protocol.Http2, created.Headers.Location!.OriginalString);
            patch.Headers.Add("Tus-Resumable", "1.0.0");
            patch.Headers.Add("Upload-Offset", "0");
            patch.Content = new StalledContent(1000, released.Task);
            patch.Content.Headers.ContentType = new("application/offset+octet-stream");
            patch.Content.Headers.ContentLength = 1048576;
            var patched = server.Client.SendAsync(patch);

            var uploads = server.Server.App.Services.GetRequiredService<UploadLimiter>();
            Assert.True(await FilesApi.EventuallyAsync(() => uploads.InFlight == 2), "the two uploads never got under way");
            var mark = server.Logs.Count;
            var stopping = server.Server.App.StopAsync();

            var putAnswer = await put.ReadResponseAsync();
            AssertServerStopping(putAnswer.StatusCode, putAnswer.Header("Content-Type"), putAnswer.BodyText);
            Assert.Equal("close", putAnswer.Header("Connection"));
            using var patchAnswer = await patched;
            AssertServerStopping((int)patchAnswer.StatusCode, patchAnswer.Content.Headers.ContentType?.ToString(), await patchAnswer.Content.ReadAsStringAsync());
            await stopping;

            var logged = server.Logs.Since(mark, LogLevel.Information);
            Assert.Single(logged, log => log.Level == LogLevel.Information && log.Message == "stopping: waiting up to 4 s for requests in flight (2 uploads)");
            Assert.Single(logged, log => log.Level == LogLevel.Warning && log.Message.StartsWith($"PUT /files/{key}: cut off, the server is stopping", StringComparison.Ordinal));
            Assert.Single(logged, log => log.Level == LogLevel.Warning && log.Message.StartsWith("PATCH /tus/", StringComparison.Ordinal) && log.Message.Contains(": cut off, the server is stopping", StringComparison.Ordinal));
            Assert.DoesNotContain(logged, log => log.Message.Contains("went away", StringComparison.Ordinal));
            Assert.Empty(server.Logs.Since(mark, LogLevel.Error));
            Assert.False(File.Exists(server.DiskPath(key)), "the cut PUT's file is visible");
            Assert.Empty(server.FilesTempFiles());
        }
        finally
        {
            released.TrySetResult();
            await server.DisposeAsync();
        }
    }

    public static TheoryData<string> CutUploads() => ["files", .. LabVariants.Uploads];

    /// <summary>
    /// Clients still sending when the stop cut their uploads, each of which writes its whole body before it reads (as a
    /// proxy streaming the body does): the rest of each body is read off after the 503, within the time left before
    /// Kestrel's reset, so each client reads the 503 and a close. The lab's variants that read <c>Request.Body</c>
    /// (raw-stream, multipart-reader, iformfile) failed: Kestrel's request stream left its reader taken when the cut
    /// canceled its read, Kestrel could not read off the rest, and the kernel reset the connection of a client still
    /// sending before it read anything.
    /// </summary>
    [Theory]
    [MemberData(nameof(CutUploads))]
    public async Task Stop_ClientsStillSendingWhenTheirUploadsAreCut_WriteTheWholeBodyAndReadServerStopping(string upload)
    {
        const int Clients = 3;
        const long FileBytes = 24L * 1024 * 1024;
        var server = new StoppingLabServer();
        await server.InitializeAsync();
        var connections = new List<RawHttpConnection>();
        try
        {
            var head = LabVariants.IsMultipart(upload) ? MultipartBodies.Head() : [];
            var length = "Content-Length: " + FilesApi.Invariant(head.Length + FileBytes);
            for (var client = 0; client < Clients; client++)
            {
                var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);
                connections.Add(connection);
                await connection.SendAsync(upload == "files"
                    ? RawHttpConnection.Head("PUT", server.HttpAddress, $"/files/{FilesApi.NewRoot()}/cut.bin", length)
                    : RawHttpConnection.Head("POST", server.HttpAddress, $"/lab/upload/{upload}?sink=file", length, "Content-Type: " + LabVariants.ContentType(upload)));
                await connection.SendAsync(head);
                await connection.SendAsync(new byte[1000]);
            }

            var uploads = server.Server.App.Services.GetRequiredService<UploadLimiter>();
            Assert.True(await FilesApi.EventuallyAsync(() => uploads.InFlight == Clients), "the uploads never got under way");
            var mark = server.Logs.Count;
            var stopping = server.Server.App.StopAsync();
            Assert.True(await FilesApi.EventuallyAsync(() => server.Logs.Since(mark, LogLevel.Warning).Count(log => log.Message.Contains(": cut off, the server is stopping", StringComparison.Ordinal)) == Clients), "the uploads were not cut");

            for (var client = 0; client < Clients; client++)
            {
                Assert.True(FileBytes - 1000 == await connections[client].SendZerosAsync(FileBytes - 1000), $"client {client + 1}: the server reset the connection while the body was still being sent");
                var answer = await connections[client].ReadResponseAsync();
                AssertServerStopping(answer.StatusCode, answer.Header("Content-Type"), answer.BodyText);
                Assert.Equal("close", answer.Header("Connection"));
                Assert.True(await connections[client].EndsWithCloseAsync(), $"client {client + 1}: the server reset the connection after its 503");
            }

            await stopping;
            Assert.Empty(server.TempFiles());
            Assert.Empty(server.UploadedFiles());
        }
        finally
        {
            foreach (var connection in connections)
            {
                await connection.DisposeAsync();
            }

            await server.DisposeAsync();
        }
    }

    [Fact]
    public async Task Stop_UploadEndsWithinTheTimeout_Stored()
    {
        var server = new StoppingServer();
        await server.InitializeAsync();
        try
        {
            var key = FilesApi.NewRoot() + "/drained.bin";
            var content = FilesApi.Content(2000);
            await using var put = await RawHttpConnection.OpenAsync(server.HttpAddress);
            await put.SendAsync(RawHttpConnection.Head("PUT", server.HttpAddress, "/files/" + key, "Content-Length: 2000"));
            await put.SendAsync(content.AsMemory(0, 1000));
            var uploads = server.Server.App.Services.GetRequiredService<UploadLimiter>();
            Assert.True(await FilesApi.EventuallyAsync(() => uploads.InFlight == 1), "the upload never got under way");
            var mark = server.Logs.Count;

            var stopping = server.Server.App.StopAsync();
            Assert.True(await FilesApi.EventuallyAsync(() => server.Logs.Since(mark).Any(log => log.Message.StartsWith("stopping:", StringComparison.Ordinal))), "the stop was not logged");
            await put.SendAsync(content.AsMemory(1000));

            var answer = await put.ReadResponseAsync();
            Assert.True(answer.StatusCode == 201, string.Join("\n", server.Logs.Since(mark, LogLevel.Debug)));
            await stopping;
            Assert.Equal(content, await File.ReadAllBytesAsync(server.DiskPath(key)));
            Assert.DoesNotContain(server.Logs.Since(mark), log => log.Message.Contains("cut off", StringComparison.Ordinal));
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    [Theory]
    [InlineData("/files/{0}/")]
    [InlineData("/my/photos/{0}")]
    public async Task Stop_MultipartPostStillArriving_FinishesAndStoresItsFiles(string path)
    {
        var server = new StoppingServer();
        await server.InitializeAsync();
        try
        {
            var root = FilesApi.NewRoot();
            var first = FilesApi.Content(3000, seed: 1);
            var second = FilesApi.Content(5000, seed: 2);
            var body = TwoFiles(first, second);

            // Everything but the last bytes of the closing delimiter: the parser holds back the "\r\n--…" it has seen,
            // so its last read examined past what it consumed, and Kestrel's stop-cancel is not hidden from it.
            var split = body.Length - 10;
            await using var idle = await IdleConnectionAsync(server);
            await using var post = await RawHttpConnection.OpenAsync(server.HttpAddress);
            await post.SendAsync(RawHttpConnection.Head("POST", server.HttpAddress, string.Format(CultureInfo.InvariantCulture, path, root), "Content-Type: " + TwoFilesContentType, "Content-Length: " + FilesApi.Invariant(body.Length)));
            await post.SendAsync(body.AsMemory(0, split));
            Assert.True(await FilesApi.EventuallyAsync(() => File.Exists(server.DiskPath(root + "/first.bin")) && server.FilesTempFiles().Length == 1), "the second file never got under way");
            var mark = server.Logs.Count;

            var stopping = server.Server.App.StopAsync();
            await KestrelStoppingAsync(idle);
            await post.SendIgnoringServerCloseAsync(body.AsMemory(split));

            var answer = await post.ReadResponseAsync();
            Assert.True(answer.StatusCode == 201, $"{answer.StatusCode}: {answer.BodyText}");
            await stopping;
            Assert.Equal(first, await File.ReadAllBytesAsync(server.DiskPath(root + "/first.bin")));
            Assert.Equal(second, await File.ReadAllBytesAsync(server.DiskPath(root + "/second.bin")));
            Assert.DoesNotContain(server.Logs.Since(mark), log => log.Message.Contains("cut off", StringComparison.Ordinal));
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    [Theory]
    [InlineData("/files/{0}/")]
    [InlineData("/my/photos/{0}")]
    public async Task Stop_MultipartPostStillStreamingAtTheTimeout_AnsweredServerStoppingAndItsPartNotStored(string path)
    {
        var server = new StoppingServer();
        await server.InitializeAsync();
        try
        {
            var root = FilesApi.NewRoot();
            var first = FilesApi.Content(3000, seed: 1);
            var body = TwoFiles(first, FilesApi.Content(1048576, seed: 2));

            // The first file whole, 1000 bytes of the second's 1 MiB, then nothing.
            var sent = body.AsSpan().IndexOf(Encoding.ASCII.GetBytes("filename=\"second.bin\"")) + 1000;
            await using var post = await RawHttpConnection.OpenAsync(server.HttpAddress);
            await post.SendAsync(RawHttpConnection.Head("POST", server.HttpAddress, string.Format(CultureInfo.InvariantCulture, path, root), "Content-Type: " + TwoFilesContentType, "Content-Length: " + FilesApi.Invariant(body.Length)));
            await post.SendAsync(body.AsMemory(0, sent));
            Assert.True(await FilesApi.EventuallyAsync(() => File.Exists(server.DiskPath(root + "/first.bin")) && server.FilesTempFiles().Length == 1), "the second file never got under way");
            var mark = server.Logs.Count;

            var stopping = server.Server.App.StopAsync();
            var answer = await post.ReadResponseAsync();
            AssertServerStopping(answer.StatusCode, answer.Header("Content-Type"), answer.BodyText);
            await stopping;

            // The file stored before the cut stays (the files API lists it, as a failed POST's problem does); the cut one is not visible.
            if (path.StartsWith("/files/", StringComparison.Ordinal))
            {
                using var problem = JsonDocument.Parse(answer.BodyText);
                Assert.Equal(root + "/first.bin", Assert.Single(problem.RootElement.GetProperty("stored").EnumerateArray()).GetProperty("name").GetString());
            }

            Assert.Equal(first, await File.ReadAllBytesAsync(server.DiskPath(root + "/first.bin")));
            Assert.False(File.Exists(server.DiskPath(root + "/second.bin")), "the cut file is visible");
            Assert.Empty(server.FilesTempFiles());
            Assert.Single(server.Logs.Since(mark, LogLevel.Warning), log => log.Message.StartsWith($"POST {string.Format(CultureInfo.InvariantCulture, path, root)}: cut off, the server is stopping", StringComparison.Ordinal));
            Assert.Empty(server.Logs.Since(mark, LogLevel.Error));
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    [Theory]
    [InlineData("freight")]
    [InlineData("multipart-freight")]
    public async Task Stop_LabUploadStillArriving_FinishesAndStoresItsFile(string variant)
    {
        var server = new StoppingLabServer();
        await server.InitializeAsync();
        try
        {
            var file = FilesApi.Content(3000);
            var body = LabVariants.IsMultipart(variant) ? MultipartBodies.Complete(file) : file;
            var split = LabVariants.IsMultipart(variant) ? body.Length - 10 : 1000;
            await using var idle = await IdleConnectionAsync(server);
            await using var upload = await RawHttpConnection.OpenAsync(server.HttpAddress);
            await upload.SendAsync(RawHttpConnection.Head("POST", server.HttpAddress, $"/lab/upload/{variant}?sink=file", "Content-Type: " + LabVariants.ContentType(variant), "Content-Length: " + FilesApi.Invariant(body.Length)));
            await upload.SendAsync(body.AsMemory(0, split));
            Assert.True(await FilesApi.EventuallyAsync(() => server.TempFiles().Length == 1), "the upload never got under way");

            var stopping = server.Server.App.StopAsync();
            await KestrelStoppingAsync(idle);
            await upload.SendIgnoringServerCloseAsync(body.AsMemory(split));

            var answer = await upload.ReadResponseAsync();
            Assert.True(answer.StatusCode == 200, $"{answer.StatusCode}: {answer.BodyText}");
            using var result = JsonDocument.Parse(answer.BodyText);
            Assert.Equal(Payloads.Hash(file), result.RootElement.GetProperty("hash").GetString());
            await stopping;
            Assert.Equal(file, await File.ReadAllBytesAsync(Path.Combine(server.UploadsDirectory, variant + ".bin")));
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    [Theory]
    [InlineData("raw-stream")]
    [InlineData("multipart-freight")]
    [InlineData("iformfile")]
    public async Task Stop_LabUploadStillStreamingAtTheTimeout_AnsweredServerStoppingAndNothingStored(string variant)
    {
        var server = new StoppingLabServer();
        await server.InitializeAsync();
        try
        {
            var file = FilesApi.Content(1048576);
            var body = LabVariants.IsMultipart(variant) ? MultipartBodies.Complete(file) : file;
            await using var upload = await RawHttpConnection.OpenAsync(server.HttpAddress);
            await upload.SendAsync(RawHttpConnection.Head("POST", server.HttpAddress, $"/lab/upload/{variant}?sink=file", "Content-Type: " + LabVariants.ContentType(variant), "Content-Length: " + FilesApi.Invariant(body.Length)));
            await upload.SendAsync(body.AsMemory(0, 2000));
            var uploads = server.Server.App.Services.GetRequiredService<UploadLimiter>();
            Assert.True(await FilesApi.EventuallyAsync(() => uploads.InFlight == 1), "the upload never got under way");
            var mark = server.Logs.Count;

            var stopping = server.Server.App.StopAsync();
            var answer = await upload.ReadResponseAsync();
            AssertServerStopping(answer.StatusCode, answer.Header("Content-Type"), answer.BodyText);
            await stopping;
            Assert.False(File.Exists(Path.Combine(server.UploadsDirectory, variant + ".bin")), "the cut upload's file is visible");
            Assert.Empty(server.TempFiles());
            Assert.Single(server.Logs.Since(mark, LogLevel.Warning), log => log.Message.StartsWith($"POST /lab/upload/{variant}: cut off, the server is stopping", StringComparison.Ordinal));
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    private const string TwoFilesBoundary = "stop-test-boundary-5kQz";

    private const string TwoFilesContentType = "multipart/form-data; boundary=" + TwoFilesBoundary;

    /// <summary>A form of two file parts, first.bin and second.bin.</summary>
    private static byte[] TwoFiles(byte[] first, byte[] second) =>
    [
        .. Encoding.ASCII.GetBytes($"--{TwoFilesBoundary}\r\nContent-Disposition: form-data; name=\"a\"; filename=\"first.bin\"\r\n\r\n"),
        .. first,
        .. Encoding.ASCII.GetBytes($"\r\n--{TwoFilesBoundary}\r\nContent-Disposition: form-data; name=\"b\"; filename=\"second.bin\"\r\n\r\n"),
        .. second,
        .. Encoding.ASCII.GetBytes($"\r\n--{TwoFilesBoundary}--\r\n"),
    ];

    /// <summary>A keep-alive connection with one request answered and none under way.</summary>
    private static async Task<RawHttpConnection> IdleConnectionAsync(ServerHarness server)
    {
        var idle = await RawHttpConnection.OpenAsync(server.HttpAddress);
        await idle.SendAsync(RawHttpConnection.Head("GET", server.HttpAddress, "/healthz"));
        Assert.Equal(200, (await idle.ReadResponseAsync()).StatusCode);
        return idle;
    }

    /// <summary>
    /// Kestrel's graceful stop under way: it asks every connection to close in one pass, which cancels a busy HTTP/1.1
    /// connection's pending body read and closes an idle one. Once the idle one is closed, the uploads' reads were canceled.
    /// </summary>
    private static async Task KestrelStoppingAsync(RawHttpConnection idle) => Assert.Empty(await idle.ReadUntilClosedAsync());

    private static void AssertServerStopping(int status, string? contentType, string body)
    {
        Assert.True(status == 503, $"expected 503, got {status}: {body}");
        Assert.StartsWith("application/problem+json", contentType, StringComparison.Ordinal);
        using var problem = JsonDocument.Parse(body);
        Assert.Equal(503, problem.RootElement.GetProperty("status").GetInt32());
        Assert.Equal("Server stopping", problem.RootElement.GetProperty("title").GetString());
    }

    /// <summary>
    /// 4 s to stop: the uploads are cut 2 s in. No minimum upload rate: the stalled bodies must be cut by the stop,
    /// not by Kestrel's rate check. <c>POST /my/photos/{folder}</c> is a route of a user's own: a
    /// <see cref="FreightMultipart"/> whose file parts are stored in the files API's store under the folder.
    /// </summary>
    private sealed class StoppingServer() : FilesServer("--Freight:ShutdownTimeout", "00:00:04", "--Freight:Files:MinUploadBytesPerSecond", "0", "--Freight:Lab", "false")
    {
        protected override void MapRoutes(WebApplication app) =>
            app.MapPost("/my/photos/{folder}", async (string folder, FreightMultipart form, [FromKeyedServices(ObjectStoreKeys.Files)] IObjectStore store) =>
            {
                var stored = new List<string>();
                await foreach (var section in form.ReadSectionsAsync())
                {
                    stored.Add((await section.StoreAsync(store, folder + "/" + section.FileName)).Key);
                }

                return Results.Created((string?)null, stored);
            });
    }

    /// <summary>The same, with the lab's uploads (<c>?sink=file</c> in the data directory).</summary>
    private sealed class StoppingLabServer() : FilesServer("--Freight:ShutdownTimeout", "00:00:04", "--Freight:Files:MinUploadBytesPerSecond", "0");

    /// <summary>A body that sends <c>sent</c> bytes, then waits until <c>released</c> or its request is cancelled.</summary>
    private sealed class StalledContent(int sent, Task released) : HttpContent
    {
        protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context) => SerializeToStreamAsync(stream, context, CancellationToken.None);

        protected override async Task SerializeToStreamAsync(Stream stream, TransportContext? context, CancellationToken cancellationToken)
        {
            await stream.WriteAsync(new byte[sent], cancellationToken);
            await stream.FlushAsync(cancellationToken);
            await released.WaitAsync(cancellationToken);
        }

        protected override bool TryComputeLength(out long length)
        {
            length = 0;
            return false;
        }
    }
}
