using System.Net;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Sample;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Files;

/// <summary>
/// <c>GET /files?prefix=&amp;limit=&amp;cursor=</c>: the files under a folder, in ordinal key order, paged
/// by an opaque cursor that visits each file exactly once.
/// </summary>
public abstract class FilesListingTests(FilesServer server)
{
    [Fact]
    public async Task List_Prefix_ListsOnlyFilesUnderThatFolderInOrder()
    {
        var root = NewRoot();
        string[] under = [$"{root}/a/1.bin", $"{root}/a/2.bin", $"{root}/a/sub/3.bin"];
        string[] outside = [$"{root}/ab/1.bin", $"{root}/a.bin", $"{root}/b/1.bin"];
        foreach (var key in under.Reverse().Concat(outside))
        {
            await CreateAsync(server, key, Content(key.Length));
        }

        using var listing = await ListAsync(server, $"prefix={root}/a");

        var items = listing.RootElement.GetProperty("items").EnumerateArray().ToList();
        Assert.Equal(under, items.Select(i => i.GetProperty("name").GetString()));
        foreach (var item in items)
        {
            var content = Content(item.GetProperty("name").GetString()!.Length);
            Assert.Equal(content.Length, item.GetProperty("size").GetInt64());
            Assert.Equal(ETag(content), item.GetProperty(ETagProperty).GetString());
        }

        Assert.Equal(System.Text.Json.JsonValueKind.Null, listing.RootElement.GetProperty("nextCursor").ValueKind);
    }

    [Fact]
    public async Task List_Always_CacheControlNoCache()
    {
        // A listing changes with every upload: a browser must ask again rather than show the heuristic copy it kept.
        var root = NewRoot();
        await CreateAsync(server, $"{root}/listed.bin", Content(10));

        using var response = await SendAsync(server, HttpMethod.Get, "/files?prefix=" + root);

        await AssertStatusAsync(response, HttpStatusCode.OK);
        Assert.Equal("no-cache", response.Headers.CacheControl?.ToString());
    }

    [Fact]
    public async Task List_PrefixWithTrailingSlash_ListsTheSameFolder()
    {
        var root = NewRoot();
        await CreateAsync(server, $"{root}/x/1.bin", Content(1));
        await CreateAsync(server, $"{root}/x-other/1.bin", Content(1));

        using var listing = await ListAsync(server, $"prefix={root}/x/");

        Assert.Equal([$"{root}/x/1.bin"], listing.RootElement.GetProperty("items").EnumerateArray().Select(i => i.GetProperty("name").GetString()));
    }

    [Fact]
    public async Task List_PagedWithLimit2_VisitsEveryFileExactlyOnceInOrder()
    {
        var root = NewRoot();
        var keys = Enumerable.Range(0, 5).Select(i => $"{root}/p/{i}.bin").ToList();
        foreach (var key in keys)
        {
            await CreateAsync(server, key, Content(10));
        }

        var seen = new List<string>();
        var pageSizes = new List<int>();
        string? cursor = null;
        do
        {
            var query = $"prefix={root}/p&limit=2" + (cursor is null ? "" : "&cursor=" + Uri.EscapeDataString(cursor));
            using var page = await ListAsync(server, query);
            var names = page.RootElement.GetProperty("items").EnumerateArray().Select(i => i.GetProperty("name").GetString()!).ToList();
            pageSizes.Add(names.Count);
            seen.AddRange(names);
            cursor = page.RootElement.GetProperty("nextCursor").GetString();
        }
        while (cursor is not null && pageSizes.Count < 10);

        Assert.Equal(keys, seen);
        Assert.Equal([2, 2, 1], pageSizes);
    }

    [Fact]
    public async Task List_EmptyFolder_ReturnsNoItemsAndNoCursor()
    {
        using var listing = await ListAsync(server, $"prefix={NewRoot()}");

        Assert.Empty(listing.RootElement.GetProperty("items").EnumerateArray());
        Assert.Equal(System.Text.Json.JsonValueKind.Null, listing.RootElement.GetProperty("nextCursor").ValueKind);
    }

    [Theory]
    [InlineData("limit=0")]
    [InlineData("limit=-1")]
    [InlineData("limit=two")]
    [InlineData("cursor=%21%21%21")]
    [InlineData("cursor=a")]
    [InlineData("prefix=..%2F")]
    [InlineData("prefix=%2Fetc")]
    [InlineData("prefix=a%2F%2Fb")]
    public async Task List_BadQuery_Returns400Problem(string query)
    {
        using var response = await SendAsync(server, HttpMethod.Get, "/files?" + query);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
    }
}

public sealed class FilesListingFileSystemTests(FileSystemFilesServer server) : FilesListingTests(server), IClassFixture<FileSystemFilesServer>;

public sealed class FilesListingMemoryTests(MemoryFilesServer server) : FilesListingTests(server), IClassFixture<MemoryFilesServer>;

public sealed class FilesListingS3Tests(S3FilesServer server) : FilesListingTests(server), IClassFixture<S3FilesServer>;

public sealed class FilesListingSampleTests(SampleFilesServer server) : FilesListingTests(server), IClassFixture<SampleFilesServer>;
