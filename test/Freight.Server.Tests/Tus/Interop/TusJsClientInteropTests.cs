using System.Globalization;
using System.Text.Json;

namespace Freight.Server.Tests.Tus.Interop;

/// <summary>
/// The official tus-js-client (npm, under Node) uploads to <c>freight serve</c>: in 5 MiB chunks, interrupted
/// mid-chunk and resumed, and in three parallel parts joined by concatenation. Every time, the file the upload
/// became (<c>GET /files/{filename}</c>, filename from Upload-Metadata) has the source's SHA-256.
/// </summary>
public sealed class TusJsClientInteropTests(TusInteropServer server) : IClassFixture<TusInteropServer>
{
    private const long Size = 64L * 1024 * 1024;

    private const int ChunkSize = 5 * 1024 * 1024;

    [Fact]
    public async Task Upload_64MiBIn5MiBChunks_StoredFileHasTheSourceSha256()
    {
        var (source, sha256) = await SourceAsync(seed: 71);
        var filename = NewFilename("plain");

        var run = await TusJsClient.UploadAsync(server.TusEndpoint, source, ChunkSize, filename, "plain");

        var result = run.AssertSucceeded();
        var requests = run.Requests();
        var creation = Assert.Single(requests, r => r.Method == "POST");
        Check(run, creation.Status == 201 && creation.ResponseHeader("Tus-Resumable") == "1.0.0", "POST answered 201 with Tus-Resumable: 1.0.0");
        Check(run, Url(result, "uploadUrl").StartsWith(server.TusEndpoint.ToString(), StringComparison.Ordinal), "the upload lives under /tus/");

        // One PATCH per 5 MiB chunk, each acknowledged with the offset just past it.
        var patches = requests.Where(r => r.Method == "PATCH").ToList();
        long[] chunkStarts = [.. Enumerable.Range(0, (int)((Size + ChunkSize - 1) / ChunkSize)).Select(i => (long)i * ChunkSize)];
        Assert.Equal(chunkStarts, patches.Select(p => Offset(p.Header("Upload-Offset"))));
        foreach (var patch in patches)
        {
            var expected = Math.Min(Offset(patch.Header("Upload-Offset")) + ChunkSize, Size);
            Check(run, patch.Status == 204 && Offset(patch.ResponseHeader("Upload-Offset")) == expected, $"PATCH at {patch.Header("Upload-Offset")} answered 204 with Upload-Offset {expected}");
        }

        await server.AssertStoredAsync(filename, Size, sha256);
    }

    [Fact]
    public async Task Upload_InterruptedMidChunk_ResumesAtTheOffsetHeadReportsAndStoresTheSourceSha256()
    {
        var (source, sha256) = await SourceAsync(seed: 72);
        var filename = NewFilename("interrupt");

        var run = await TusJsClient.UploadAsync(server.TusEndpoint, source, ChunkSize, filename, "interrupt");

        var result = run.AssertSucceeded();
        var interrupted = Assert.Single(run.Events, e => e.GetProperty("event").GetString() == "interrupt");
        Check(run, interrupted.GetProperty("flushed").GetBoolean(), "the bytes before the cut left the client before the connection was dropped");
        var lastAcknowledged = result.GetProperty("lastAcknowledged").GetInt64();
        var cutAt = result.GetProperty("cutAt").GetInt64();
        var headOffset = result.GetProperty("headOffset").GetInt64();

        // The server keeps at least what it acknowledged and at most what it was sent (tus 1.0 §PATCH: it SHOULD
        // keep as much of an interrupted PATCH as it received); either way not the whole file, not nothing.
        Check(run, headOffset > 0 && headOffset < Size, $"HEAD after the interruption reports 0 < Upload-Offset < {Size}");
        Check(run, headOffset >= lastAcknowledged && headOffset <= cutAt, $"HEAD's Upload-Offset {headOffset} lies between the last acknowledged offset {lastAcknowledged} and the cut {cutAt}");

        // The resumed client asks the server (HEAD) and sends exactly from there.
        Check(run, result.GetProperty("resumedHeadOffset").GetInt64() == headOffset, "the resumed client's HEAD reports the same offset");
        Check(run, result.GetProperty("firstResumedPatchOffset").GetInt64() == headOffset, $"the first resumed PATCH starts at Upload-Offset {headOffset}");
        var resumed = run.Requests().Where(r => r.Phase == "resumed").ToList();
        // 423 is fair for a moment (the dropped PATCH may still hold the upload's lock) and tus-js-client retries it.
        Check(run, resumed.All(r => r.Status is 200 or 204 or 423), "every request after resuming succeeded or met the lock");
        Check(run, resumed.Last(r => r.Method == "PATCH").ResponseHeader("Upload-Offset") == Invariant(Size), "the last PATCH completes the upload");
        Check(run, Url(result, "uploadUrl") == interrupted.GetProperty("uploadUrl").GetString(), "the resumed upload is the interrupted one");

        await server.AssertStoredAsync(filename, Size, sha256);
    }

    [Fact]
    public async Task Upload_ThreeParallelPartsConcatenated_StoredFileHasTheSourceSha256()
    {
        var (source, sha256) = await SourceAsync(seed: 73);
        var filename = NewFilename("parallel");

        var run = await TusJsClient.UploadAsync(server.TusEndpoint, source, ChunkSize, filename, "parallel");

        var result = run.AssertSucceeded();
        var creations = run.Requests().Where(r => r.Method == "POST").ToList();
        var partials = creations.Where(r => r.Header("Upload-Concat") == "partial").ToList();
        Check(run, partials.Count == 3 && partials.All(p => p.Status == 201), "three partial uploads (Upload-Concat: partial) were created");
        var partialUrls = result.GetProperty("partialUrls").EnumerateArray().Select(u => u.GetString()!).ToList();
        Assert.Equal(3, partialUrls.Distinct().Count());

        var final = Assert.Single(creations, r => r.Header("Upload-Concat")?.StartsWith("final;", StringComparison.Ordinal) == true);
        // tus-js-client lists the parts in file order, which need not be the order their creations were answered in.
        Assert.Equal(partialUrls.Order(StringComparer.Ordinal), final.Header("Upload-Concat")!["final;".Length..].Split(' ').Order(StringComparer.Ordinal));
        Check(run, final.Status == 201 && final.ResponseHeader("Tus-Resumable") == "1.0.0", "the final upload (Upload-Concat: final;…) was created: 201");
        Check(run, final.Header("Upload-Metadata")?.Contains("filename ", StringComparison.Ordinal) == true, "the final upload carries the filename");

        await server.AssertStoredAsync(filename, Size, sha256);

        // Partial uploads are pieces, not files: none became /files/{id}.
        foreach (var partialUrl in partialUrls)
        {
            var id = new Uri(partialUrl).Segments[^1];
            using var response = await server.Client.GetAsync(new Uri(server.Address, "/files/" + id));
            Check(run, (int)response.StatusCode == 404, $"partial upload {id} is not a file (GET /files/{id} answered {(int)response.StatusCode})");
        }
    }

    private async Task<(string Path, string Sha256)> SourceAsync(ulong seed)
    {
        var path = server.WriteSource(Size, seed);
        await using var file = File.OpenRead(path);
        var (length, sha256) = await TusInteropServer.Sha256Async(file);
        Assert.Equal(Size, length);
        return (path, sha256);
    }

    private static string NewFilename(string mode) => $"tus-js-client-{mode}-{Guid.NewGuid().ToString("N")[..12]}.bin";

    private static string Url(JsonElement result, string property) => result.GetProperty(property).GetString()!;

    private static long Offset(string? header) => long.Parse(header ?? "-1", CultureInfo.InvariantCulture);

    private static string Invariant(long value) => value.ToString(CultureInfo.InvariantCulture);

    /// <summary>Asserts <paramref name="condition"/>, showing everything tus-js-client sent and received when it fails.</summary>
    private static void Check(TusRun run, bool condition, string expectation) =>
        Assert.True(condition, $"expected: {expectation}\n" + run.Output.Describe());
}
