using System.Net;
using System.Security.Cryptography;
using System.Text.Json;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Sample;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Files;

/// <summary>
/// RFC 9530 integrity fields (and the legacy Content-MD5) on the files API: a digest that matches is
/// stored and answered; one that does not leaves nothing behind; Want-Repr-Digest gets the SHA-256.
/// </summary>
public abstract class FilesDigestTests(FilesServer server)
{
    private static readonly byte[] s_content = Content(200_000, seed: 7);
    private static readonly byte[] s_other = Content(200_000, seed: 8);

    [Fact]
    public async Task Put_CorrectSha256ContentDigest_Returns201WithEqualReprDigest()
    {
        var key = $"{NewRoot()}/sha256.bin";

        using var response = await PutAsync(server, key, s_content, ("Content-Digest", Sha256Field(s_content)));

        await AssertStatusAsync(response, HttpStatusCode.Created);
        Assert.Equal(Sha256Field(s_content), Assert.Single(response.Headers.GetValues("Repr-Digest")));
        using var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        Assert.Equal(Convert.ToHexStringLower(SHA256.HashData(s_content)), body.RootElement.GetProperty("sha256").GetString());
        await AssertStoredAsync(server, key, s_content);
    }

    [Fact]
    public async Task Put_CorrectSha512ContentDigest_Returns201()
    {
        var key = $"{NewRoot()}/sha512.bin";

        using var response = await PutAsync(server, key, s_content, ("Content-Digest", Sha512Field(s_content)));

        await AssertStatusAsync(response, HttpStatusCode.Created);
        await AssertStoredAsync(server, key, s_content);
    }

    [Fact]
    public async Task Put_CorrectContentMd5_Returns201()
    {
        var key = $"{NewRoot()}/md5.bin";

        using var response = await PutAsync(server, key, s_content, ("Content-MD5", Md5Value(s_content)));

        await AssertStatusAsync(response, HttpStatusCode.Created);
        await AssertStoredAsync(server, key, s_content);
    }

    [Fact]
    public async Task Put_UnsupportedDigestAlgorithmOnly_IsIgnoredAndStored()
    {
        // RFC 9530 §2: a recipient may ignore a digest whose algorithm it does not support.
        var key = $"{NewRoot()}/sha384.bin";
        var sha384 = "sha-384=:" + Convert.ToBase64String(SHA384.HashData(s_other)) + ":";

        using var response = await PutAsync(server, key, s_content, ("Content-Digest", sha384));

        await AssertStatusAsync(response, HttpStatusCode.Created);
        await AssertStoredAsync(server, key, s_content);
    }

    public static TheoryData<string> WrongDigests() =>
    [
        "content-digest-sha-256",
        "content-digest-sha-512",
        "content-md5",
        "repr-digest-sha-256",
        "content-digest-one-of-two-wrong",
    ];

    private static (string Name, string Value) WrongDigest(string kind) => kind switch
    {
        "content-digest-sha-256" => ("Content-Digest", Sha256Field(s_other)),
        "content-digest-sha-512" => ("Content-Digest", Sha512Field(s_other)),
        "content-md5" => ("Content-MD5", Md5Value(s_other)),
        "repr-digest-sha-256" => ("Repr-Digest", Sha256Field(s_other)),
        "content-digest-one-of-two-wrong" => ("Content-Digest", Sha256Field(s_content) + ", " + Sha512Field(s_other)),
        _ => throw new ArgumentOutOfRangeException(nameof(kind)),
    };

    [Theory]
    [MemberData(nameof(WrongDigests))]
    public async Task Put_WrongDigest_Returns400AndStoresNothing(string kind)
    {
        var key = $"{NewRoot()}/wrong.bin";

        using var response = await PutAsync(server, key, s_content, WrongDigest(kind));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
        Assert.Contains("\"title\":\"Digest mismatch\"", await response.Content.ReadAsStringAsync(), StringComparison.Ordinal);
        await AssertAbsentAsync(server, key);
    }

    [Fact]
    public async Task Put_WrongDigestOverExistingFile_Returns400AndKeepsTheOldContent()
    {
        var key = $"{NewRoot()}/kept.bin";
        await CreateAsync(server, key, s_other);

        using var response = await PutAsync(server, key, s_content, ("Content-Digest", Sha256Field(s_other)));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
        Assert.Empty(server.FilesTempFiles());
        await AssertStoredAsync(server, key, s_other);
    }

    public static TheoryData<string, string> MalformedDigests() => new()
    {
        { "Content-Digest", "sha-256=abc" },
        { "Content-Digest", "sha-256=:not base64!:" },
        { "Content-Digest", "sha-256=:" + Convert.ToBase64String(new byte[16]) + ":" },
        { "Content-Digest", "SHA-256=:" + Convert.ToBase64String(new byte[32]) + ":" },
        { "Content-Digest", "sha-256=:" + Convert.ToBase64String(new byte[32]) + ":," },
        { "Repr-Digest", "sha-512" },
        { "Content-MD5", "xyz" },
        { "Content-MD5", Convert.ToBase64String(new byte[32]) },
    };

    /// <summary>Only the headers go out: the 400 must come before the server waits for (or stores) any of the body.</summary>
    [Theory]
    [MemberData(nameof(MalformedDigests))]
    public async Task Put_MalformedDigestHeader_Returns400BeforeTheBody(string name, string value)
    {
        var key = $"{NewRoot()}/malformed.bin";
        var head = RawHttpConnection.Head("PUT", server.HttpAddress, "/files/" + key, "Content-Length: " + Invariant(Payloads.MiB), $"{name}: {value}");

        var response = await RawAsync(server.HttpAddress, head);

        ProblemAssert.IsProblem(response, HttpStatusCode.BadRequest);
        Assert.Equal("close", response.Header("Connection"));
        await AssertAbsentAsync(server, key);
    }

    [Fact]
    public async Task Put_WantReprDigestSha256_Returns201WithTheSha256()
    {
        var key = $"{NewRoot()}/asked.bin";

        using var response = await PutAsync(server, key, s_content, ("Want-Repr-Digest", "sha-256=1"));

        await AssertStatusAsync(response, HttpStatusCode.Created);
        Assert.Equal(Sha256Field(s_content), Assert.Single(response.Headers.GetValues("Repr-Digest")));
        using var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        Assert.Equal(Convert.ToHexStringLower(SHA256.HashData(s_content)), body.RootElement.GetProperty("sha256").GetString());
    }

    [Fact]
    public async Task Get_WantReprDigestAfterPutWithDigest_ReturnsTheStoredSha256()
    {
        var key = $"{NewRoot()}/digested.bin";
        using (var put = await PutAsync(server, key, s_content, ("Content-Digest", Sha256Field(s_content))))
        {
            await AssertStatusAsync(put, HttpStatusCode.Created);
        }

        using var response = await SendAsync(server, HttpMethod.Get, "/files/" + key, ("Want-Repr-Digest", "sha-256=1"));

        await AssertStatusAsync(response, HttpStatusCode.OK);
        Assert.Equal(Sha256Field(s_content), Assert.Single(response.Headers.GetValues("Repr-Digest")));
        Assert.Equal(s_content, await response.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task Get_WantReprDigestAfterPutWithoutDigest_ComputesTheSha256OnceAndKeepsIt()
    {
        var key = $"{NewRoot()}/later.bin";
        await CreateAsync(server, key, s_content);
        var before = await ListedAsync(server, key);
        Assert.Equal(JsonValueKind.Null, before!.Value.GetProperty("sha256").ValueKind);

        using (var first = await SendAsync(server, HttpMethod.Get, "/files/" + key, ("Want-Repr-Digest", "sha-256=1")))
        {
            await AssertStatusAsync(first, HttpStatusCode.OK);
            Assert.Equal(Sha256Field(s_content), Assert.Single(first.Headers.GetValues("Repr-Digest")));
            Assert.Equal(s_content, await first.Content.ReadAsByteArrayAsync());
        }

        // Kept with the object: the listing now reports it, and the next GET answers the same.
        var after = await ListedAsync(server, key);
        Assert.Equal(Convert.ToHexStringLower(SHA256.HashData(s_content)), after!.Value.GetProperty("sha256").GetString());
        Assert.Equal(ETag(s_content), after.Value.GetProperty(ETagProperty).GetString());
        using var second = await SendAsync(server, HttpMethod.Get, "/files/" + key, ("Want-Repr-Digest", "sha-256=1"));
        await AssertStatusAsync(second, HttpStatusCode.OK);
        Assert.Equal(Sha256Field(s_content), Assert.Single(second.Headers.GetValues("Repr-Digest")));
    }

    [Fact]
    public async Task Get_WantReprDigestWith304Or412_ComputesNothingAndKeepsNothing()
    {
        var key = $"{NewRoot()}/conditional.bin";
        await CreateAsync(server, key, s_content);

        using (var notModified = await SendAsync(server, HttpMethod.Get, "/files/" + key, ("Want-Repr-Digest", "sha-256=1"), ("If-None-Match", ETag(s_content))))
        {
            await AssertStatusAsync(notModified, HttpStatusCode.NotModified);
            Assert.False(notModified.Headers.Contains("Repr-Digest"));
        }

        using (var failed = await SendAsync(server, HttpMethod.Get, "/files/" + key, ("Want-Repr-Digest", "sha-256=1"), ("If-Match", "\"other\"")))
        {
            await AssertStatusAsync(failed, HttpStatusCode.PreconditionFailed);
            Assert.False(failed.Headers.Contains("Repr-Digest"));
        }

        // No digest was read and kept for answers that carry no representation.
        var listed = await ListedAsync(server, key);
        Assert.Equal(JsonValueKind.Null, listed!.Value.GetProperty("sha256").ValueKind);
    }
}

public sealed class FilesDigestFileSystemTests(FileSystemFilesServer server) : FilesDigestTests(server), IClassFixture<FileSystemFilesServer>;

public sealed class FilesDigestMemoryTests(MemoryFilesServer server) : FilesDigestTests(server), IClassFixture<MemoryFilesServer>;

public sealed class FilesDigestS3Tests(S3FilesServer server) : FilesDigestTests(server), IClassFixture<S3FilesServer>;

public sealed class FilesDigestSampleTests(SampleFilesServer server) : FilesDigestTests(server), IClassFixture<SampleFilesServer>;
