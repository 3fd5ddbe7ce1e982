using System.Net;
using System.Security.Cryptography;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;
using static Freight.Server.Tests.Tus.TusApi;

namespace Freight.Server.Tests.Tus;

/// <summary>
/// Upload state lives in the data directory, not in the process: after <c>freight serve</c> stops (SIGTERM)
/// or is killed (SIGKILL) mid-PATCH, a new process on the same directory reports the same offset (after a
/// kill: the prefix that reached the disk), takes the rest, and the file verifies — ETag and SHA-256 included,
/// though the running digests died with the first process.
/// </summary>
public sealed class TusRestartTests : IDisposable
{
    private const int Size = 3 * Payloads.MiB;

    private readonly string _directory = Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N"));
    private readonly HttpClient _client = new();

    public TusRestartTests() => Directory.CreateDirectory(_directory);

    public void Dispose()
    {
        _client.Dispose();
        if (Directory.Exists(_directory))
        {
            Directory.Delete(_directory, recursive: true);
        }
    }

    [Fact]
    public async Task Restart_AfterHalfTheUpload_HeadReportsTheSameOffsetAndTheUploadFinishes()
    {
        var content = Content(Size, seed: 181);
        const string Key = "restart/half.bin";
        var metadata = Metadata(("filename", Key), ("filetype", "application/x-half"));
        string path;

        await using (var first = StartServe())
        {
            var address = await ListeningAsync(first);
            using (var created = await SendAsync(address, HttpMethod.Post, "/tus/", null, ("Upload-Length", Invariant(Size)), ("Upload-Metadata", metadata)))
            {
                path = await CreatedAsync(created);
            }

            await PatchAsync(address, path, 0, content[..(Size / 2)]);
            Assert.Equal(Size / 2, await OffsetAsync(address, path));
            Assert.Equal(0, await first.TerminateAsync());
        }

        await using var second = StartServe();
        var restarted = await ListeningAsync(second);
        using (var head = await SendAsync(restarted, HttpMethod.Head, path, null))
        {
            Assert.Equal(HttpStatusCode.OK, head.StatusCode);
            Assert.Equal(Size / 2, Offset(head));
            Assert.Equal(Invariant(Size), Header(head, "Upload-Length"));
            Assert.Equal(metadata, Header(head, "Upload-Metadata"));
            Expires(head);
        }

        using (var early = await _client.GetAsync(new Uri(restarted, "/files/" + Key)))
        {
            Assert.Equal(HttpStatusCode.NotFound, early.StatusCode);
        }

        await PatchAsync(restarted, path, Size / 2, content[(Size / 2)..]);
        await AssertFileAsync(restarted, Key, content, "application/x-half");
        Assert.False(File.Exists(Path.Combine(_directory, "tus", Id(path) + ".bin")));
    }

    [Fact]
    public async Task Restart_AfterTheProcessWasKilledMidPatch_ResumesFromTheBytesThatReachedTheDisk()
    {
        var content = Content(Size, seed: 182);
        const string Key = "restart/killed.bin";
        string path;
        RawHttpConnection? connection = null;
        try
        {
            await using (var first = StartServe())
            {
                var address = await ListeningAsync(first);
                using (var created = await SendAsync(address, HttpMethod.Post, "/tus/", null, ("Upload-Length", Invariant(Size)), ("Upload-Metadata", Metadata(("filename", Key)))))
                {
                    path = await CreatedAsync(created);
                }

                await PatchAsync(address, path, 0, content[..Payloads.MiB]);

                // The second MiB-and-a-half is half sent when the process dies: no handler runs, nothing is cleaned up.
                connection = await RawHttpConnection.OpenAsync(address);
                await connection.SendAsync(RawHttpConnection.Head("PATCH", address, path,
                    "Tus-Resumable: 1.0.0", "Content-Type: " + OffsetStream, "Upload-Offset: " + Invariant(Payloads.MiB), "Content-Length: " + Invariant(2 * Payloads.MiB)));
                await connection.SendAsync(content[Payloads.MiB..(2 * Payloads.MiB)]);
                // Watched on disk: a HEAD would take the PATCH over.
                var bytes = Path.Combine(_directory, "tus", Id(path) + ".bin");
                Assert.True(await PollUntilAsync(() => Task.FromResult(new FileInfo(bytes).Length > Payloads.MiB)), "the PATCH never started storing");

                // Disposing kills the process (SIGKILL) while the client is still connected.
            }

            await connection.DisposeAsync();
            await using var second = StartServe();
            var restarted = await ListeningAsync(second);

            var kept = await OffsetAsync(restarted, path);

            Assert.InRange(kept, Payloads.MiB + 1, 2 * Payloads.MiB);
            Assert.Equal(content[..(int)kept], await File.ReadAllBytesAsync(Path.Combine(_directory, "tus", Id(path) + ".bin")));
            await PatchAsync(restarted, path, kept, content[(int)kept..]);
            await AssertFileAsync(restarted, Key, content, "application/octet-stream");
        }
        finally
        {
            if (connection is not null)
            {
                await connection.DisposeAsync();
            }
        }
    }

    [Fact]
    public async Task Restart_AfterTheUploadFinished_HeadStillPointsAtTheFile()
    {
        var content = Content(100_000, seed: 183);
        const string Key = "restart/done.bin";
        string path;

        await using (var first = StartServe())
        {
            var address = await ListeningAsync(first);
            using (var created = await SendAsync(address, HttpMethod.Post, "/tus/", null, ("Upload-Length", Invariant(content.Length)), ("Upload-Metadata", Metadata(("filename", Key)))))
            {
                path = await CreatedAsync(created);
            }

            await PatchAsync(address, path, 0, content);
            Assert.Equal(0, await first.TerminateAsync());
        }

        await using var second = StartServe();
        var restarted = await ListeningAsync(second);
        using (var head = await SendAsync(restarted, HttpMethod.Head, path, null))
        {
            Assert.Equal(HttpStatusCode.OK, head.StatusCode);
            Assert.Equal(content.Length, Offset(head));
            Assert.Equal("/files/" + Key, Header(head, "Content-Location"));
        }

        await AssertFileAsync(restarted, Key, content, "application/octet-stream");
    }

    private FreightProcess StartServe() => FreightProcess.StartServe(_directory, ["--urls", "http://127.0.0.1:0", "--data-dir", _directory]);

    private static async Task<Uri> ListeningAsync(FreightProcess process) =>
        new((await process.ReadUntilListeningAsync(1)).Single(l => l.StartsWith("listening: ", StringComparison.Ordinal))["listening: ".Length..]);

    private async Task<HttpResponseMessage> SendAsync(Uri address, HttpMethod method, string path, HttpContent? body, params (string Name, string Value)[] headers)
    {
        using var request = new HttpRequestMessage(method, new Uri(address, path)) { Content = body };
        request.Headers.Add("Tus-Resumable", TusApi.Version);
        foreach (var (name, value) in headers)
        {
            request.Headers.Add(name, value);
        }

        return await _client.SendAsync(request);
    }

    private async Task PatchAsync(Uri address, string path, long offset, byte[] chunk)
    {
        using var response = await SendAsync(address, HttpMethod.Patch, path, Body(chunk), ("Upload-Offset", Invariant(offset)));
        await AssertStatusAsync(response, HttpStatusCode.NoContent);
        Assert.Equal(offset + chunk.Length, Offset(response));
    }

    private async Task<long> OffsetAsync(Uri address, string path)
    {
        using var response = await SendAsync(address, HttpMethod.Head, path, null);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        return Offset(response);
    }

    /// <summary>The file holds every byte: GET's body, its ETag (XXH3-128, as a PUT's), the SHA-256 the server reports, the Content-Type.</summary>
    private async Task AssertFileAsync(Uri address, string key, byte[] content, string contentType)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, new Uri(address, "/files/" + key));
        request.Headers.Add("Want-Repr-Digest", "sha-256=1");
        using var response = await _client.SendAsync(request);
        await AssertStatusAsync(response, HttpStatusCode.OK);
        Assert.Equal(ETag(content), response.Headers.ETag?.ToString());
        Assert.Equal(Sha256Field(content), Assert.Single(response.Headers.GetValues("Repr-Digest")));
        Assert.Equal(contentType, response.Content.Headers.ContentType?.MediaType);
        var body = await response.Content.ReadAsByteArrayAsync();
        Assert.Equal(content.Length, body.Length);
        Assert.Equal(SHA256.HashData(content), SHA256.HashData(body));
        Assert.Equal(content, body);
    }
}
