using System.Globalization;
using System.Net;
using System.Net.Http.Headers;
using Amazon.S3;
using Freight.Lab.Payload;
using Freight.Server.Tests.Infrastructure;
using Freight.Testing.Rgw;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Files;

/// <summary>
/// What only the S3 store has to prove, checked in the bucket itself: a client that goes away mid-body leaves no
/// object and no multipart upload behind, and a large upload streams through in bounded memory
/// (PartsInFlight × PartBytes, not the payload).
/// </summary>
public sealed class FilesS3Tests(S3FilesServer server, Xunit.Abstractions.ITestOutputHelper output) : IClassFixture<S3FilesServer>
{
    private const long MiB = Payloads.MiB;

    // Bounded waits for the server to finish an abort it runs after the connection dropped; not timing assertions.
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(10);

    [Theory]
    [InlineData(FilesAbortTests.Abort.Reset)]
    [InlineData(FilesAbortTests.Abort.Close)]
    public async Task Put_ClientGoesAwayAfter40Of100MiB_LeavesNoObjectAndNoMultipartUpload(FilesAbortTests.Abort abort)
    {
        var key = $"{NewRoot()}/torn.bin";
        var keysBefore = await server.RgwBucket.KeysAsync();

        await using (var connection = await RawHttpConnection.OpenAsync(server.HttpAddress))
        {
            await connection.SendAsync(RawHttpConnection.Head("PUT", server.HttpAddress, "/files/" + key,
                "Content-Type: application/octet-stream", "Content-Length: " + Invariant(100 * MiB)));
            await SendPayloadAsync(connection, 40 * MiB);

            // 40 MiB is more than two 16 MiB parts: the store has begun its multipart upload by now.
            Assert.True(await PollAsync(async () => (await server.RgwBucket.MultipartUploadsAsync()).Count > 0), "no multipart upload began in the bucket");
            if (abort == FilesAbortTests.Abort.Reset)
            {
                connection.Reset();
            }
            else
            {
                connection.Close();
            }
        }

        // The server aborts after the connection dropped, on its own time: wait for the bucket to settle.
        Assert.True(
            await PollAsync(async () => (await server.RgwBucket.MultipartUploadsAsync()).Count == 0),
            "multipart uploads outlived the request: " + string.Join(", ", (await server.RgwBucket.MultipartUploadsAsync()).Select(u => u.Key)));
        Assert.Equal(keysBefore, await server.RgwBucket.KeysAsync());
        using (var head = await SendAsync(server, HttpMethod.Head, "/files/" + key))
        {
            Assert.Equal(HttpStatusCode.NotFound, head.StatusCode);
        }

        var missing = await Assert.ThrowsAnyAsync<AmazonS3Exception>(() => server.S3.GetObjectMetadataAsync(server.Bucket, key));
        Assert.Equal(HttpStatusCode.NotFound, missing.StatusCode);
        await AssertAbsentAsync(server, key);

        // And the server still serves, that key included.
        var content = Content(300_000, seed: 91);
        await CreateAsync(server, key, content);
        await AssertStoredAsync(server, key, content);
        using var deleted = await SendAsync(server, HttpMethod.Delete, "/files/" + key);
        await AssertStatusAsync(deleted, HttpStatusCode.NoContent);
    }

    [Fact]
    public async Task Put_40MiBWithWrongDigest_400AndNoObjectAndNoMultipartUpload()
    {
        // 40 MiB: parts went up before the digest could be checked at the end; the mismatch must take them all back.
        var key = $"{NewRoot()}/mismatch.bin";
        var content = Content((int)(40 * MiB), seed: 93);
        var keysBefore = await server.RgwBucket.KeysAsync();

        using var response = await PutAsync(server, key, content, ("Content-Digest", Sha256Field(Content(10, seed: 94))));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
        Assert.True(await PollAsync(async () => (await server.RgwBucket.MultipartUploadsAsync()).Count == 0), "the multipart upload outlived the refused PUT");
        Assert.Equal(keysBefore, await server.RgwBucket.KeysAsync());
        await AssertAbsentAsync(server, key);
    }

    [Fact]
    public async Task Put_BucketGoneAfterStart_502ProblemAndTheServerKeepsServing()
    {
        // The object store failing is not the client's fault: 502 with S3's reason, logged once, server unharmed.
        var directory = Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N"));
        var bucket = await SharedRgw.CreateBucketAsync(nameof(FilesS3Tests));
        await using var server = Freight.Server.Hosting.FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", directory, .. bucket.FreightArguments()]);
        await server.StartAsync();
        await bucket.DisposeAsync();
        using var client = new HttpClient { BaseAddress = new Uri(server.Urls.Single()) };

        using var put = await client.PutAsync("/files/a.bin", new ByteArrayContent(Content(1000, seed: 92)));
        using var ping = await client.GetAsync("/lab/ping");

        await ProblemAssert.IsProblemAsync(put, HttpStatusCode.BadGateway);
        Assert.Contains("NoSuchBucket", await put.Content.ReadAsStringAsync(), StringComparison.Ordinal);
        Assert.Equal(HttpStatusCode.OK, ping.StatusCode);
        Directory.Delete(directory, recursive: true);
    }

    [Fact]
    public async Task Serve_BucketMissing_Exit2WithTheReasonBeforeListening()
    {
        var rgw = await SharedRgw.GetAsync();
        var bucket = "no-such-bucket-" + Guid.NewGuid().ToString("N")[..8];

        var (exitCode, output, error) = await RunServeAsync(rgw.Endpoint.GetLeftPart(UriPartial.Authority), bucket, RgwProcess.SecretKey);

        Assert.Equal(2, exitCode);
        Assert.Equal("", output);
        Assert.Equal($"error: Freight:S3:Bucket: the bucket '{bucket}' does not exist on {rgw.Endpoint.GetLeftPart(UriPartial.Authority)}.", error.Trim());
    }

    [Fact]
    public async Task Serve_WrongSecretKey_Exit2WithTheReasonBeforeListening()
    {
        var rgw = await SharedRgw.GetAsync();
        await using var bucket = await SharedRgw.CreateBucketAsync(nameof(FilesS3Tests));

        var (exitCode, output, error) = await RunServeAsync(rgw.Endpoint.GetLeftPart(UriPartial.Authority), bucket.Name, "not-the-secret");

        Assert.Equal(2, exitCode);
        Assert.Equal("", output);
        Assert.StartsWith($"error: Freight:S3:Bucket: {rgw.Endpoint.GetLeftPart(UriPartial.Authority)} refuses these keys access to the bucket '{bucket.Name}' (403", error.Trim(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Start_S3ServerUnreachable_ServesAnd502sUntilItAnswers()
    {
        // Nothing listens there: at start that is a warning, not a refusal (the S3 server may come up later).
        using var closed = new System.Net.Sockets.TcpListener(IPAddress.Loopback, 0);
        closed.Start();
        var port = ((IPEndPoint)closed.LocalEndpoint).Port;
        closed.Stop();
        var directory = Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N"));
        await using var server = Freight.Server.Hosting.FreightServer.Create(
        [
            "--urls", "http://127.0.0.1:0", "--data-dir", directory,
            "--Freight:Files:Store", "S3", "--Freight:S3:Endpoint", $"http://127.0.0.1:{port}", "--Freight:S3:Bucket", "files",
            "--Freight:S3:AccessKey", RgwProcess.AccessKey, "--Freight:S3:SecretKey", RgwProcess.SecretKey,
        ]);

        await server.StartAsync();
        using var client = new HttpClient { BaseAddress = new Uri(server.Urls.Single()) };
        using var put = await client.PutAsync("/files/a.bin", new ByteArrayContent(Content(1000, seed: 93)));
        using var ping = await client.GetAsync("/lab/ping");

        await ProblemAssert.IsProblemAsync(put, HttpStatusCode.BadGateway);
        Assert.Equal(HttpStatusCode.OK, ping.StatusCode);
        Directory.Delete(directory, recursive: true);
    }

    private static async Task<(int ExitCode, string Output, string Error)> RunServeAsync(string endpoint, string bucket, string secretKey)
    {
        var directory = Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N"));
        using var output = new StringWriter();
        using var error = new StringWriter();
        var exitCode = await Freight.Server.Hosting.FreightServer.RunAsync(
        [
            "--urls", "http://127.0.0.1:0", "--data-dir", directory, "--store", "s3", "--s3-endpoint", endpoint, "--s3-bucket", bucket,
            "--Freight:S3:AccessKey", RgwProcess.AccessKey, "--Freight:S3:SecretKey", secretKey,
        ],
            output,
            error);
        if (Directory.Exists(directory))
        {
            Directory.Delete(directory, recursive: true);
        }

        return (exitCode, output.ToString(), error.ToString());
    }

    [Fact]
    public async Task Put_1GiB_ServerMemoryGrowsByAtMostPartsInFlightTimesPartBytesPlus64MiB()
    {
        const long Size = 1024 * MiB;
        const long PartBytes = 16 * MiB;
        const int PartsInFlight = 4;
        // The store's buffers (parts being filled and in flight), plus slack for Kestrel, the SDK and the GC's budgets.
        const long Budget = (PartsInFlight * PartBytes) + (64 * MiB);
        var directory = Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(directory);
        await using var bucket = await SharedRgw.CreateBucketAsync(nameof(FilesS3Tests));
        try
        {
            await using var serve = FreightProcess.StartServe(directory,
            [
                "--urls", "http://127.0.0.1:0", "--data-dir", directory, .. bucket.FreightArguments(),
                "--Freight:S3:PartBytes", Invariant(PartBytes), "--Freight:S3:PartsInFlight", Invariant(PartsInFlight),
            ]);
            var address = ListeningAddress(await serve.ReadUntilListeningAsync(1));
            var pid = ProcessIdOf(directory);
            using var client = new HttpClient { Timeout = TimeSpan.FromMinutes(10) };

            // Warm-up: the request path jitted and the S3 client connected, so the baseline holds them.
            using (var warmUp = await client.PutAsync(new Uri(address, "/files/warm-up.bin"), new ByteArrayContent(Content((int)MiB, seed: 92))))
            {
                await AssertStatusAsync(warmUp, HttpStatusCode.Created);
            }

            ResetPeakResidentSet(pid);
            var baseline = StatusBytes(pid, "VmRSS");
            using var put = new HttpRequestMessage(HttpMethod.Put, new Uri(address, "/files/big/1gib.bin"))
            {
                Content = new StreamContent(new GeneratedPayloadStream(Size), (int)MiB),
            };
            put.Content.Headers.ContentLength = Size;
            put.Content.Headers.ContentType = new MediaTypeHeaderValue("application/octet-stream");
            using (var created = await client.SendAsync(put))
            {
                await AssertStatusAsync(created, HttpStatusCode.Created);
            }

            var peak = StatusBytes(pid, "VmHWM");
            output.WriteLine($"freight serve's peak RSS grew {(peak - baseline) / (double)MiB:0.#} MiB during the 1 GiB PUT (baseline {baseline / MiB} MiB; budget {Budget / MiB} MiB)");

            Assert.True(peak - baseline <= Budget,
                $"RSS grew by {(peak - baseline) / MiB} MiB during a 1 GiB PUT (baseline {baseline / MiB} MiB, peak {peak / MiB} MiB): more than {PartsInFlight} x {PartBytes / MiB} MiB parts + 64 MiB");
            var etag = Quote(GeneratedPayloadStream.Hash(Size));
            using (var head = await client.SendAsync(new HttpRequestMessage(HttpMethod.Head, new Uri(address, "/files/big/1gib.bin"))))
            {
                await AssertStatusAsync(head, HttpStatusCode.OK);
                Assert.Equal(etag, head.Headers.ETag?.ToString());
                Assert.Equal(Size, head.Content.Headers.ContentLength);
            }

            var stored = await bucket.Client.GetObjectMetadataAsync(bucket.Name, "big/1gib.bin");
            Assert.Equal(Size, stored.ContentLength);
            using var deleted = await client.DeleteAsync(new Uri(address, "/files/big/1gib.bin"));
            await AssertStatusAsync(deleted, HttpStatusCode.NoContent);
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    /// <summary>Sends <paramref name="count"/> bytes of the deterministic payload, a MiB at a time (never the whole body in memory).</summary>
    private static async Task SendPayloadAsync(RawHttpConnection connection, long count)
    {
        var buffer = new byte[MiB];
        for (long offset = 0; offset < count; offset += buffer.Length)
        {
            var chunk = buffer.AsMemory(0, (int)Math.Min(buffer.Length, count - offset));
            DeterministicPayload.Fill(chunk.Span, offset);
            await connection.SendAsync(chunk);
        }
    }

    private static async Task<bool> PollAsync(Func<Task<bool>> condition)
    {
        var deadline = DateTime.UtcNow + s_patience;
        while (!await condition())
        {
            if (DateTime.UtcNow > deadline)
            {
                return false;
            }

            await Task.Delay(50);
        }

        return true;
    }

    private static Uri ListeningAddress(IReadOnlyList<string> lines) =>
        new(lines.Single(l => l.StartsWith("listening: ", StringComparison.Ordinal))["listening: ".Length..]);

    /// <summary>The one process whose command line names <paramref name="dataDirectory"/>: the <c>freight serve</c> child of this test.</summary>
    private static int ProcessIdOf(string dataDirectory)
    {
        var matches = new List<int>();
        foreach (var entry in Directory.EnumerateDirectories("/proc"))
        {
            if (!int.TryParse(Path.GetFileName(entry), NumberStyles.None, CultureInfo.InvariantCulture, out var pid))
            {
                continue;
            }

            try
            {
                if (File.ReadAllText(Path.Combine(entry, "cmdline")).Split('\0').Contains(dataDirectory))
                {
                    matches.Add(pid);
                }
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                // A process that ended meanwhile, or one we may not read: not ours.
            }
        }

        return Assert.Single(matches);
    }

    /// <summary>Resets VmHWM to the current RSS (Linux 4.0+: clear_refs 5), so the peak read later is this upload's.</summary>
    private static void ResetPeakResidentSet(int pid)
    {
        try
        {
            File.WriteAllText($"/proc/{Invariant(pid)}/clear_refs", "5");
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Not resettable here: VmHWM then includes start-up, which only makes the check stricter.
        }
    }

    /// <summary>A <c>/proc/PID/status</c> field in bytes (the kernel reports kB).</summary>
    private static long StatusBytes(int pid, string field)
    {
        var line = File.ReadLines($"/proc/{Invariant(pid)}/status").Single(l => l.StartsWith(field + ":", StringComparison.Ordinal));
        var kilobytes = line[(field.Length + 1)..].Trim().Split(' ')[0];
        return long.Parse(kilobytes, NumberStyles.None, CultureInfo.InvariantCulture) * 1024;
    }
}
