using System.Net;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Sample;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Files;

/// <summary>
/// Conditional writes and deletes (RFC 9110 §13.1.1–2): If-None-Match: * creates only, If-Match replaces
/// or deletes only the version named; a failed condition changes nothing.
/// </summary>
public abstract class FilesConditionTests(FilesServer server)
{
    private static readonly byte[] s_old = Content(5000, seed: 11);
    private static readonly byte[] s_new = Content(6000, seed: 12);

    [Fact]
    public async Task Put_IfNoneMatchStarOnNewPath_Returns201()
    {
        var key = $"{NewRoot()}/new.bin";

        using var response = await PutAsync(server, key, s_new, ("If-None-Match", "*"));

        await AssertStatusAsync(response, HttpStatusCode.Created);
        await AssertStoredAsync(server, key, s_new);
    }

    [Fact]
    public async Task Put_IfNoneMatchStarOnExistingPath_Returns412AndKeepsTheOldContent()
    {
        var key = $"{NewRoot()}/existing.bin";
        await CreateAsync(server, key, s_old);

        using var response = await PutAsync(server, key, s_new, ("If-None-Match", "*"));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.PreconditionFailed);
        // The version the write lost to, so the client need not ask.
        Assert.Equal(ETag(s_old), response.Headers.ETag?.ToString());
        Assert.Empty(server.FilesTempFiles());
        await AssertStoredAsync(server, key, s_old);
    }

    [Fact]
    public async Task Put_IfMatchCurrentETag_Returns204AndReplaces()
    {
        var key = $"{NewRoot()}/current.bin";
        var etag = await CreateAsync(server, key, s_old);

        using var response = await PutAsync(server, key, s_new, ("If-Match", etag));

        await AssertStatusAsync(response, HttpStatusCode.NoContent);
        Assert.Equal(ETag(s_new), response.Headers.ETag?.ToString());
        await AssertStoredAsync(server, key, s_new);
    }

    [Fact]
    public async Task Put_IfMatchAmongSeveralTags_Returns204()
    {
        var key = $"{NewRoot()}/list.bin";
        var etag = await CreateAsync(server, key, s_old);

        using var response = await PutAsync(server, key, s_new, ("If-Match", "\"other\", " + etag));

        await AssertStatusAsync(response, HttpStatusCode.NoContent);
        await AssertStoredAsync(server, key, s_new);
    }

    [Theory]
    [InlineData("\"other\"")]
    [InlineData("weak-of-current")]
    public async Task Put_IfMatchOtherOrWeakETag_Returns412AndKeepsTheOldContent(string ifMatch)
    {
        var key = $"{NewRoot()}/other.bin";
        var etag = await CreateAsync(server, key, s_old);

        // §13.1.1 compares strongly: W/ of the current tag does not match it.
        using var response = await PutAsync(server, key, s_new, ("If-Match", ifMatch == "weak-of-current" ? "W/" + etag : ifMatch));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.PreconditionFailed);
        await AssertStoredAsync(server, key, s_old);
    }

    [Fact]
    public async Task Put_IfMatchOnMissingPath_Returns412AndCreatesNothing()
    {
        var key = $"{NewRoot()}/missing.bin";

        using var response = await PutAsync(server, key, s_new, ("If-Match", ETag(s_new)));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.PreconditionFailed);
        Assert.Null(response.Headers.ETag);
        await AssertAbsentAsync(server, key);
    }

    [Fact]
    public async Task Put_IfNoneMatchWithATag_Returns400()
    {
        var key = $"{NewRoot()}/tagged.bin";

        using var response = await PutAsync(server, key, s_new, ("If-None-Match", "\"abc\""));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
        await AssertAbsentAsync(server, key);
    }

    /// <summary>The commit re-checks the condition atomically: of racing create-only writers exactly one creates.</summary>
    [Fact]
    public async Task Put_ConcurrentIfNoneMatchStarWriters_ExactlyOneCreatesTheRestGet412()
    {
        var key = $"{NewRoot()}/race.bin";
        var payloads = Enumerable.Range(0, 10).Select(i => Content(128 * 1024, seed: 200 + (ulong)i)).ToArray();

        var statuses = await Task.WhenAll(payloads.Select(async (payload, i) =>
        {
            using var request = Put(server, key, payload, i % 2 == 0 ? Protocol.Http11 : Protocol.Http2);
            request.Headers.IfNoneMatch.Add(System.Net.Http.Headers.EntityTagHeaderValue.Any);
            using var response = await server.Client.SendAsync(request);
            return (response.StatusCode, ETag: response.Headers.ETag?.ToString());
        }));

        var created = Assert.Single(statuses, s => s.StatusCode == HttpStatusCode.Created);
        Assert.All(statuses.Where(s => s != created), s => Assert.Equal(HttpStatusCode.PreconditionFailed, s.StatusCode));
        var winner = Array.FindIndex(payloads, p => ETag(p) == created.ETag);
        Assert.True(winner >= 0, "the 201's ETag is none of the payloads'");
        await AssertStoredAsync(server, key, payloads[winner]);
    }

    [Fact]
    public async Task Delete_ExistingFile_Returns204ThenGetReturns404()
    {
        var key = $"{NewRoot()}/deleted.bin";
        await CreateAsync(server, key, s_old);

        using var response = await SendAsync(server, HttpMethod.Delete, "/files/" + key);

        await AssertStatusAsync(response, HttpStatusCode.NoContent);
        await AssertAbsentAsync(server, key);
        if (server.FilesDirectory is not null)
        {
            // The metadata sidecar goes with it.
            // The file and its sidecar are gone, and so is the folder they left empty.
            var folder = Path.GetDirectoryName(server.DiskPath(key))!;
            Assert.True(!Directory.Exists(folder) || Directory.GetFiles(folder).Length == 0, folder);
        }
    }

    [Fact]
    public async Task Delete_IfMatchCurrentETag_Returns204()
    {
        var key = $"{NewRoot()}/matched.bin";
        var etag = await CreateAsync(server, key, s_old);

        using var response = await SendAsync(server, HttpMethod.Delete, "/files/" + key, ("If-Match", etag));

        await AssertStatusAsync(response, HttpStatusCode.NoContent);
        await AssertAbsentAsync(server, key);
    }

    [Fact]
    public async Task Delete_IfMatchWrongETag_Returns412AndTheFileStays()
    {
        var key = $"{NewRoot()}/stays.bin";
        await CreateAsync(server, key, s_old);

        using var response = await SendAsync(server, HttpMethod.Delete, "/files/" + key, ("If-Match", "\"other\""));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.PreconditionFailed);
        await AssertStoredAsync(server, key, s_old);
    }

    [Fact]
    public async Task Delete_MissingFile_Returns404Problem()
    {
        using var response = await SendAsync(server, HttpMethod.Delete, $"/files/{NewRoot()}/never.bin");

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
    }
}

public sealed class FilesConditionFileSystemTests(FileSystemFilesServer server) : FilesConditionTests(server), IClassFixture<FileSystemFilesServer>;

public sealed class FilesConditionCopyingTests(CopyingFilesServer server) : FilesConditionTests(server), IClassFixture<CopyingFilesServer>;

public sealed class FilesConditionMemoryTests(MemoryFilesServer server) : FilesConditionTests(server), IClassFixture<MemoryFilesServer>;

public sealed class FilesConditionS3Tests(S3FilesServer server) : FilesConditionTests(server), IClassFixture<S3FilesServer>;

public sealed class FilesConditionSampleTests(SampleFilesServer server) : FilesConditionTests(server), IClassFixture<SampleFilesServer>;
