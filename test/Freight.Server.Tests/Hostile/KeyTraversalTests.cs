using System.Net;
using Amazon.S3.Model;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Tus;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// Keys that could climb out of a store or alias another key — '..', '.', empty segments, encoded slashes,
/// backslashes — reach no store: PUT, GET and DELETE answer 400 problem on raw sockets (HttpClient would
/// normalize them), and the store holds exactly what it held before. One contract, run on every store
/// (the memory and S3 stores have no folders to escape, but a key like "a/../b" would still alias "b").
/// </summary>
public abstract class KeyTraversalTests(FilesServer server)
{
    private static readonly byte[] s_body = "hello"u8.ToArray();

    public static TheoryData<string> BadKeys() =>
    [
        "..%2Fescape.txt",
        "a/..%2F..%2Fescape.txt",
        "k/a%2F..%2Fb.txt",
        "k%2F.%2Fb.txt",
        "k/.%2Fb.txt",
        "a%2Fb.txt",
        "a%2fb.txt",
        "a%5Cb.txt",
        "..%5C..%5Cescape.txt",
        "a\\b.txt",
        "a//b.txt",
        "dir/",
        "%2E%2E%2Fescape.txt",
        "a/%2E%2E%2F%2E%2E%2Fescape.txt",
        ".%2Fx.txt",
    ];

    /// <summary>What the store holds, looked at from outside the server where the store allows it.</summary>
    private async Task<List<string>> StoreContentsAsync()
    {
        if (server is S3FilesServer s3)
        {
            var keys = new List<string>();
            var request = new ListObjectsV2Request { BucketName = s3.Bucket };
            ListObjectsV2Response page;
            do
            {
                page = await s3.S3.ListObjectsV2Async(request);
                keys.AddRange((page.S3Objects ?? []).Select(item => item.Key));
                request.ContinuationToken = page.NextContinuationToken;
            }
            while (page.IsTruncated == true);

            return keys;
        }

        if (server.FilesDirectory is not null)
        {
            return [.. server.DataDirectorySnapshot()];
        }

        // The memory store: what the API lists.
        using var listing = await ListAsync(server, "prefix=&limit=1000");
        return [.. listing.RootElement.GetProperty("items").EnumerateArray().Select(item => item.GetProperty("name").GetString()!)];
    }

    [Theory]
    [MemberData(nameof(BadKeys))]
    public async Task PutGetDelete_TraversalOrAliasKey_Return400AndReachNoStore(string path)
    {
        // A file where "k/a/../b.txt" or "k/./b.txt" would land if a store normalized the key itself.
        using (var put = await PutAsync(server, "k/b.txt", s_body))
        {
            Assert.True(put.IsSuccessStatusCode, $"PUT k/b.txt: {(int)put.StatusCode}");
        }

        var before = await StoreContentsAsync();

        foreach (var method in new[] { "PUT", "GET", "DELETE" })
        {
            var head = method == "PUT"
                ? RawHttpConnection.Head(method, server.HttpAddress, "/files/" + path, "Content-Length: " + Invariant(s_body.Length))
                : RawHttpConnection.Head(method, server.HttpAddress, "/files/" + path);

            var response = await RawAsync(server.HttpAddress, head, method == "PUT" ? s_body : null);

            ProblemAssert.IsProblem(response, HttpStatusCode.BadRequest);
        }

        Assert.Equal(before, await StoreContentsAsync());
        await AssertStoredAsync(server, "k/b.txt", s_body);
    }
}

public sealed class KeyTraversalFileSystemTests(FileSystemFilesServer server) : KeyTraversalTests(server), IClassFixture<FileSystemFilesServer>;

public sealed class KeyTraversalMemoryTests(MemoryFilesServer server) : KeyTraversalTests(server), IClassFixture<MemoryFilesServer>;

public sealed class KeyTraversalS3Tests(S3FilesServer server) : KeyTraversalTests(server), IClassFixture<S3FilesServer>;

/// <summary>
/// The name a tus upload lands at comes from Upload-Metadata, not the URL: it goes through the same key rules,
/// so a backslash or a climbing name is refused at creation on every store, before anything is kept.
/// </summary>
public abstract class TusKeyTraversalTests(TusServer server)
{
    [Theory]
    [InlineData("..\\escape.bin")]
    [InlineData("a\\b.bin")]
    [InlineData("a/./b.bin")]
    [InlineData("./b.bin")]
    [InlineData("a/..")]
    public async Task Post_FilenameThatClimbsOrAliases_Returns400AndCreatesNothing(string filename)
    {
        var before = server.TusFiles();

        using var response = await TusApi.PostAsync(server, [("Upload-Length", "10"), ("Upload-Metadata", TusApi.Metadata(("filename", filename)))]);

        await TusApi.AssertRefusedAsync(response, HttpStatusCode.BadRequest);
        Assert.Null(response.Headers.Location);
        Assert.Equal(before, server.TusFiles());
    }
}

public sealed class TusKeyTraversalFileSystemTests(FileSystemTusServer server) : TusKeyTraversalTests(server), IClassFixture<FileSystemTusServer>;

public sealed class TusKeyTraversalMemoryTests(MemoryTusServer server) : TusKeyTraversalTests(server), IClassFixture<MemoryTusServer>;

public sealed class TusKeyTraversalS3Tests(S3TusServer server) : TusKeyTraversalTests(server), IClassFixture<S3TusServer>;
