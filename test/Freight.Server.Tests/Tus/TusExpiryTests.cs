using System.Net;
using static Freight.Server.Tests.Files.FilesApi;
using static Freight.Server.Tests.Tus.TusApi;

namespace Freight.Server.Tests.Tus;

/// <summary>
/// The expiration extension with uploads that expire one second after their last byte and no sweep after
/// start: an expired upload answers 410 Gone to HEAD and PATCH, keeps its bytes until swept, and can still be
/// terminated; a finished upload's file never expires. Uploads finish or stop within one request, so the
/// one-second clock never decides a test's outcome.
/// </summary>
public sealed class TusExpiryTests(ExpiringTusServer server) : IClassFixture<ExpiringTusServer>
{
    private static readonly byte[] s_content = Content(300_000, seed: 161);

    [Fact]
    public async Task ExpiredUpload_HeadAndPatchReturn410AndItsBytesStayUntilSwept()
    {
        var key = NewFileName();
        var path = await CreateWithFirstPartAsync(key, 100_000);

        Assert.True(await PollUntilAsync(async () => await HeadStatusAsync(server, path) != HttpStatusCode.OK), "the upload never expired");

        using (var head = await HeadAsync(server, path))
        {
            await AssertRefusedAsync(head, HttpStatusCode.Gone);
        }

        using (var patch = await PatchAsync(server, path, 100_000, s_content[100_000..]))
        {
            await AssertRefusedAsync(patch, HttpStatusCode.Gone);
        }

        Assert.Equal(s_content[..100_000], server.StoredBytes(Id(path)));
        Assert.True(server.HasRecord(Id(path)));
        await AssertNoFileAsync(server, key);
    }

    [Fact]
    public async Task ExpiredUpload_Delete_Returns204AndRemovesItsBytes()
    {
        var path = await CreateWithFirstPartAsync(NewFileName(), 100_000);
        Assert.True(await PollUntilAsync(async () => await HeadStatusAsync(server, path) == HttpStatusCode.Gone), "the upload never expired");

        using var deleted = await DeleteAsync(server, path);

        Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, await HeadStatusAsync(server, path));
        Assert.Null(server.StoredBytes(Id(path)));
        Assert.False(server.HasRecord(Id(path)));
    }

    [Fact]
    public async Task FinishedUpload_AfterItsExpiry_StillAnswersHeadAndKeepsItsFile()
    {
        var key = NewFileName();
        var path = await CreateWithFirstPartAsync(key, s_content.Length);
        var unfinished = await CreateWithFirstPartAsync(NewFileName(), 1000);
        // A witness that the clock passed the finished upload's expiry too.
        Assert.True(await PollUntilAsync(async () => await HeadStatusAsync(server, unfinished) == HttpStatusCode.Gone), "the witness never expired");

        using var head = await HeadAsync(server, path);

        Assert.Equal(HttpStatusCode.OK, head.StatusCode);
        Assert.Equal(s_content.Length, Offset(head));
        Assert.Equal("/files/" + key, Header(head, "Content-Location"));
        await AssertFileAsync(server, key, s_content);
    }

    /// <summary>Creates the upload with its first <paramref name="bytes"/> in the same request (creation-with-upload).</summary>
    private async Task<string> CreateWithFirstPartAsync(string key, int bytes)
    {
        using var response = await PostAsync(server, [("Upload-Length", Invariant(s_content.Length)), ("Upload-Metadata", Metadata(("filename", key)))], Body(s_content[..bytes]));
        var path = await CreatedAsync(response);
        Assert.Equal(bytes, Offset(response));
        if (bytes < s_content.Length)
        {
            Expires(response);
        }

        return path;
    }
}

/// <summary>
/// The expiry sweep (every 200 ms, uploads expiring one second after their last byte): an expired upload
/// goes — HEAD 404, record and bytes gone from disk — while the file of a finished one stays.
/// </summary>
public sealed class TusSweepTests(SweepingTusServer server) : IClassFixture<SweepingTusServer>
{
    private static readonly byte[] s_content = Content(300_000, seed: 162);

    [Fact]
    public async Task ExpiredUpload_IsSweptWithItsBytes()
    {
        var key = NewFileName();
        using var created = await PostAsync(server, [("Upload-Length", Invariant(s_content.Length)), ("Upload-Metadata", Metadata(("filename", key)))], Body(s_content[..100_000]));
        var path = await CreatedAsync(created);

        Assert.True(await PollUntilAsync(async () => await HeadStatusAsync(server, path) == HttpStatusCode.NotFound), "the upload was never swept");

        Assert.True(await PollUntilAsync(() => Task.FromResult(!server.TusFiles().Any(name => name.StartsWith(Id(path), StringComparison.Ordinal)))), "its files stayed");
        using (var patch = await PatchAsync(server, path, 100_000, s_content[100_000..]))
        {
            await AssertRefusedAsync(patch, HttpStatusCode.NotFound);
        }

        await AssertNoFileAsync(server, key);
    }

    [Fact]
    public async Task FinishedUpload_IsSweptButItsFileStays()
    {
        var key = NewFileName();
        using var created = await PostAsync(server, [("Upload-Length", Invariant(s_content.Length)), ("Upload-Metadata", Metadata(("filename", key)))], Body(s_content));
        var path = await CreatedAsync(created);
        Assert.Equal("/files/" + key, Header(created, "Content-Location"));

        Assert.True(await PollUntilAsync(async () => await HeadStatusAsync(server, path) == HttpStatusCode.NotFound), "the record was never swept");

        Assert.False(server.HasRecord(Id(path)));
        await AssertFileAsync(server, key, s_content);
    }
}
