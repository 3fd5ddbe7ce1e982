using System.Net;
using Freight.AspNetCore.Errors;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Tus;
using Microsoft.Extensions.Logging;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// ENOSPC for real (a tmpfs of 8 MiB as the data directory) on every write path: each answers 507 problem+json and
/// logs it once; nothing partial is visible, the space is freed, a tus upload keeps the bytes it holds and finishes
/// once space is freed, reads still serve, and the server keeps serving.
/// </summary>
public sealed class DiskFullTests(TmpfsTusServer server) : IClassFixture<TmpfsTusServer>
{
    // Larger than the whole tmpfs.
    private const int TooLarge = 12 * 1024 * 1024;

    // What a refused write may leave behind on the tmpfs: nothing but folder entries (df counts pages of 4 KiB).
    private const long Slack = 64 * 1024;

    [TmpfsFact]
    public Task Put_KnownLengthLargerThanTheDisk_Returns507AndFreesTheSpace() => PutLargerThanTheDiskAsync(Framing.ContentLength);

    [TmpfsFact]
    public Task Put_ChunkedLargerThanTheDisk_Returns507AndFreesTheSpace() => PutLargerThanTheDiskAsync(Framing.Chunked);

    [TmpfsFact]
    public async Task MultipartPost_FileLargerThanTheDisk_Returns507AndFreesTheSpace()
    {
        var root = FilesApi.NewRoot();
        var free = server.FreeBytes;
        var mark = server.Logs.Count;

        var response = await FramingTests.SendAndWaitForCloseAsync(server, "POST", "/files/" + root,
            ["Content-Type: " + MultipartBodies.ContentType, "Transfer-Encoding: chunked"],
            [.. RawHttpConnection.Chunked(MultipartBodies.Complete(FilesApi.Content(TooLarge)), 64 * 1024), .. RawHttpConnection.LastChunk]);

        ProblemAssert.IsProblem(response, HttpStatusCode.InsufficientStorage);
        AssertLoggedOnce(server.Logs.Since(mark));
        await FilesApi.AssertAbsentAsync(server, root + "/payload.bin");
        Assert.InRange(server.FreeBytes, free - Slack, free + Slack);
        await AssertStillStoresAsync();
    }

    [TmpfsFact]
    public Task TusPost_BodyLargerThanTheFreeSpace_Returns507KeepsTheOffsetAndFinishesOnceFreed() => TusLargerThanTheFreeSpaceAsync(creation: true);

    [TmpfsFact]
    public Task TusPatch_LargerThanTheFreeSpace_Returns507KeepsTheOffsetAndFinishesOnceFreed() => TusLargerThanTheFreeSpaceAsync(creation: false);

    /// <summary>The last byte fits, but the landing into /files (the tus record, the file's metadata) does not.</summary>
    [TmpfsFact]
    public async Task TusLanding_DiskFullAtCompletion_Returns507AndLandsOnceFreed()
    {
        var key = TusApi.NewFileName();
        // Not a multiple of the page size: the last byte lands in a page the upload already holds.
        var content = FilesApi.Content(1024 * 1024 + 100);
        var path = await TusApi.CreateAsync(server, content.Length, key);
        using (var allButLast = await TusApi.PatchAsync(server, path, 0, content[..^1]))
        {
            await FilesApi.AssertStatusAsync(allButLast, HttpStatusCode.NoContent);
        }

        try
        {
            server.Fill();
            var mark = server.Logs.Count;
            using (var last = await TusApi.PatchAsync(server, path, content.Length - 1, content[^1..]))
            {
                await TusApi.AssertRefusedAsync(last, HttpStatusCode.InsufficientStorage);
            }

            AssertLoggedOnce(server.Logs.Since(mark));
            Assert.Equal(content, server.StoredBytes(TusApi.Id(path)));
            await TusApi.AssertNoFileAsync(server, key);
        }
        finally
        {
            server.Free();
        }

        // Every byte is there: an empty PATCH at the end lands it.
        Assert.Equal(content.Length, await TusApi.OffsetAsync(server, path));
        using (var land = await TusApi.PatchAsync(server, path, content.Length, []))
        {
            await FilesApi.AssertStatusAsync(land, HttpStatusCode.NoContent);
        }

        await TusApi.AssertFileAsync(server, key, content);
        await server.AssertServingAsync();
        await DeleteAsync(key);
    }

    /// <summary>Reading writes only what spares the next request work (a digest computed for Want-Repr-Digest): a full disk must not fail it.</summary>
    [TmpfsFact]
    public async Task Get_WantReprDigestOnAFullDisk_ServesTheFileAndTheDigest()
    {
        var key = FilesApi.NewRoot() + "/small.bin";
        var content = FilesApi.Content(100 * 1024);
        await FilesApi.CreateAsync(server, key, content);
        try
        {
            server.Fill();

            using var response = await FilesApi.SendAsync(server, HttpMethod.Get, "/files/" + key, ("Want-Repr-Digest", "sha-256=1"));

            await FilesApi.AssertStatusAsync(response, HttpStatusCode.OK);
            Assert.Equal(FilesApi.Sha256Field(content), Assert.Single(response.Headers.GetValues("Repr-Digest")));
            Assert.Equal(FilesApi.ETag(content), response.Headers.ETag?.ToString());
            Assert.Equal(content, await response.Content.ReadAsByteArrayAsync());
        }
        finally
        {
            server.Free();
        }

        await DeleteAsync(key);
    }

    private async Task PutLargerThanTheDiskAsync(Framing framing)
    {
        var key = FilesApi.NewRoot() + "/big.bin";
        var content = FilesApi.Content(TooLarge);
        var free = server.FreeBytes;
        var mark = server.Logs.Count;

        var response = await FramingTests.SendAndWaitForCloseAsync(server, "PUT", "/files/" + key, [FramingHeader(framing, content.Length)], Wire(framing, content));

        ProblemAssert.IsProblem(response, HttpStatusCode.InsufficientStorage);
        AssertLoggedOnce(server.Logs.Since(mark));
        await FilesApi.AssertAbsentAsync(server, key);
        Assert.InRange(server.FreeBytes, free - Slack, free + Slack);
        await AssertStillStoresAsync();
    }

    private async Task TusLargerThanTheFreeSpaceAsync(bool creation)
    {
        var key = TusApi.NewFileName();
        var content = FilesApi.Content(4 * 1024 * 1024);
        var tusHeaders = new[] { "Tus-Resumable: " + TusApi.Version, "Content-Type: " + TusApi.OffsetStream, "Content-Length: " + FilesApi.Invariant(content.Length) };
        string? path = null;
        try
        {
            // A PATCH's upload is created while there is room (the creation quota refuses a length the disk cannot
            // take); a creation with a body defers its length, which the quota counts only once declared, so its
            // bytes meet the full disk. Either way the disk fills under the writes, not before the checks.
            path = creation ? null : await TusApi.CreateAsync(server, content.Length, key);
            server.FillAllBut(1024 * 1024);
            var mark = server.Logs.Count;

            var response = await FramingTests.SendAndWaitForCloseAsync(server, creation ? "POST" : "PATCH", path ?? "/tus/",
                creation
                    ? [.. tusHeaders, "Upload-Defer-Length: 1", "Upload-Metadata: " + TusApi.Metadata(("filename", key))]
                    : [.. tusHeaders, "Upload-Offset: 0"],
                content);

            TusApi.AssertRefused(response, HttpStatusCode.InsufficientStorage);
            AssertLoggedOnce(server.Logs.Since(mark));
            // A creation that ran out of space still names its upload, so the client can resume it.
            path ??= response.Header("Location") ?? throw new Xunit.Sdk.XunitException("the 507 names no upload");
        }
        finally
        {
            server.Free();
        }

        // The bytes that fitted are kept, exactly, and the rest resumes from there (declaring a deferred length).
        var offset = await TusApi.OffsetAsync(server, path);
        Assert.InRange(offset, 1, content.Length - 1);
        Assert.Equal(content[..(int)offset], server.StoredBytes(TusApi.Id(path)));
        await TusApi.AssertNoFileAsync(server, key);
        using (var rest = await TusApi.PatchAsync(server, path, offset, content[(int)offset..], headers: creation ? [("Upload-Length", FilesApi.Invariant(content.Length))] : []))
        {
            await FilesApi.AssertStatusAsync(rest, HttpStatusCode.NoContent);
        }

        await TusApi.AssertFileAsync(server, key, content);
        await server.AssertServingAsync();
        await DeleteAsync(key);
    }

    /// <summary>The server stores again: a small PUT is kept whole (and removed, to give its space back).</summary>
    private async Task AssertStillStoresAsync()
    {
        var key = FilesApi.NewRoot() + "/after.bin";
        var content = FilesApi.Content(64 * 1024, seed: 7);
        await FilesApi.CreateAsync(server, key, content);
        await FilesApi.AssertStoredAsync(server, key, content);
        await DeleteAsync(key);
        await server.AssertServingAsync();
    }

    /// <summary>Deletes a file a test stored: the tests share the tmpfs, and each needs most of it.</summary>
    private async Task DeleteAsync(string key)
    {
        using var deleted = await FilesApi.SendAsync(server, HttpMethod.Delete, "/files/" + key);
        await FilesApi.AssertStatusAsync(deleted, HttpStatusCode.NoContent);
    }

    /// <summary>One entry at warning or worse: the problem middleware's error naming the 507, nothing from Kestrel.</summary>
    private static void AssertLoggedOnce(IReadOnlyList<CapturedLog> logged)
    {
        var entry = Assert.Single(logged);
        Assert.Equal(typeof(ProblemMiddleware).FullName, entry.Category);
        Assert.Equal(LogLevel.Error, entry.Level);
        Assert.Contains("507", entry.Message, StringComparison.Ordinal);
    }

    private static string FramingHeader(Framing framing, int length) =>
        framing == Framing.ContentLength ? "Content-Length: " + FilesApi.Invariant(length) : "Transfer-Encoding: chunked";

    private static byte[] Wire(Framing framing, byte[] content) =>
        framing == Framing.ContentLength ? content : [.. RawHttpConnection.Chunked(content, 64 * 1024), .. RawHttpConnection.LastChunk];
}
