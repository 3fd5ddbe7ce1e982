using System.Net;
using System.Net.Http.Headers;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;
using static Freight.Server.Tests.Tus.TusApi;

namespace Freight.Server.Tests.Tus;

/// <summary>
/// Tus-Max-Size (Freight:Tus:MaxUploadBytes): announced by OPTIONS; an upload declared, deferred or joined
/// past it is 413 and changes nothing; one of exactly the limit is fine.
/// </summary>
public sealed class TusLimitTests(SmallTusServer server) : IClassFixture<SmallTusServer>
{
    private const int Limit = SmallTusServer.Limit;

    [Fact]
    public async Task Options_AnnouncesTheLimitAsTusMaxSize()
    {
        using var request = Request(server, HttpMethod.Options, "/tus/");

        using var response = await server.Client.SendAsync(request);

        Assert.Equal(HttpStatusCode.NoContent, response.StatusCode);
        Assert.Equal(Invariant(Limit), Header(response, "Tus-Max-Size"));
    }

    [Fact]
    public async Task Post_LengthOneByteOverTheLimit_Returns413AndCreatesNothing()
    {
        var before = server.TusFiles();

        using var response = await PostAsync(server, [("Upload-Length", Invariant(Limit + 1)), ("Upload-Metadata", Metadata(("filename", NewFileName())))]);

        await AssertRefusedAsync(response, HttpStatusCode.RequestEntityTooLarge);
        Assert.Equal(Invariant(Limit), Header(response, "Tus-Max-Size"));
        Assert.Equal(before, server.TusFiles());
    }

    [Fact]
    public async Task Upload_OfExactlyTheLimit_BecomesTheFile()
    {
        var key = NewFileName();
        var content = Content(Limit, seed: 151);
        var path = await CreateAsync(server, Limit, key);

        await PatchAllAsync(server, path, content, Limit / 2);

        await AssertFileAsync(server, key, content);
    }

    [Fact]
    public async Task DeferredUpload_ChunkPastTheLimit_Returns413AndChangesNothing()
    {
        var key = NewFileName();
        var content = Content(Limit + 1, seed: 152);
        var path = await CreateDeferredAsync(server, key);
        await PatchAllAsync(server, path, content[..1000], 1000);

        using (var response = await PatchAsync(server, path, 1000, content[1000..]))
        {
            await AssertRefusedAsync(response, HttpStatusCode.RequestEntityTooLarge);
        }

        await AssertHoldsAsync(server, path, content, 1000, key);
    }

    [Fact]
    public async Task DeferredUpload_ChunkedBodyPastTheLimit_Returns413AndDiscardsTheWholeChunk()
    {
        var key = NewFileName();
        var content = Content(2 * Limit, seed: 153);
        var path = await CreateDeferredAsync(server, key);
        await PatchAllAsync(server, path, content[..1000], 1000);

        var response = await PatchChunkedRefusedPartWayAsync(server, path, 1000, content[1000..]);
        AssertRefused(response, HttpStatusCode.RequestEntityTooLarge);

        await AssertHoldsAsync(server, path, content, 1000, key);
    }

    [Fact]
    public async Task DeferredUpload_DeclaringALengthPastTheLimit_Returns413AndStaysDeferred()
    {
        var key = NewFileName();
        var content = Content(1000, seed: 154);
        var path = await CreateDeferredAsync(server, key);
        await PatchAllAsync(server, path, content, 1000);

        using (var response = await PatchAsync(server, path, 1000, [], headers: ("Upload-Length", Invariant(Limit + 1))))
        {
            await AssertRefusedAsync(response, HttpStatusCode.RequestEntityTooLarge);
        }

        await AssertHoldsAsync(server, path, content, 1000, key);
        using var head = await HeadAsync(server, path);
        Assert.Equal("1", Header(head, "Upload-Defer-Length"));
    }

    [Fact]
    public async Task Final_PartsSummingPastTheLimit_Returns413AndKeepsTheParts()
    {
        var key = NewFileName();
        var part = Content((Limit / 2) + 1, seed: 155);
        var paths = new List<string>();
        for (var i = 0; i < 2; i++)
        {
            var path = await CreateAsync(server, part.Length, headers: ("Upload-Concat", "partial"));
            await PatchAllAsync(server, path, part, part.Length);
            paths.Add(path);
        }

        var before = server.TusFiles();

        using var response = await PostAsync(server, [("Upload-Concat", $"final;{paths[0]} {paths[1]}"), ("Upload-Metadata", Metadata(("filename", key)))]);

        await AssertRefusedAsync(response, HttpStatusCode.RequestEntityTooLarge);
        Assert.Equal(before, server.TusFiles());
        await AssertNoFileAsync(server, key);
        foreach (var path in paths)
        {
            Assert.Equal(part.Length, await OffsetAsync(server, path));
        }
    }
}
