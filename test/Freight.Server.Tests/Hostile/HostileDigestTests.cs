using System.Net;
using System.Security.Cryptography;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// Integrity fields an attacker writes (RFC 9530 over RFC 8941 dictionaries): malformed ones are a 400 before
/// the body is taken, unknown algorithms and out-of-range preferences are ignored, a mismatch is the documented
/// 400 with nothing stored — on each store, over HTTP/1.1 and HTTP/2. (The plain malformed and mismatch cases
/// are in FilesDigestTests; these are the ones built to confuse a parser.)
/// </summary>
public abstract class HostileDigestTests(FilesServer server)
{
    private static readonly byte[] s_content = Content(50_000, seed: 71);

    private static string Base64Of(int bytes) => Convert.ToBase64String(new byte[bytes]);

    public static TheoryData<string, string, Protocol> MalformedFields()
    {
        var cases = new TheoryData<string, string, Protocol>();
        foreach (var protocol in new[] { Protocol.Http11, Protocol.Http2 })
        {
            foreach (var (name, value) in new[]
            {
                // sha-512 needs 64 bytes, sha-256 32: any other length is not a digest.
                ("Content-Digest", "sha-512=:" + Base64Of(32) + ":"),
                ("Content-Digest", "sha-256=:" + Base64Of(33) + ":"),
                ("Content-Digest", "sha-256=::"),
                ("Content-Digest", "sha-256=:===:"),
                // Not byte sequences: integer, boolean, string, token, inner list.
                ("Content-Digest", "sha-256=12345678901234567890"),
                ("Content-Digest", "sha-256=?1"),
                ("Content-Digest", "sha-256=\"" + Base64Of(32) + "\""),
                ("Content-Digest", "sha-256=(:" + Base64Of(32) + ":)"),
                // Not a dictionary.
                ("Content-Digest", ":" + Base64Of(32) + ":"),
                ("Content-Digest", "sha-256=:" + Base64Of(32) + ": junk"),
                ("Repr-Digest", "=:" + Base64Of(32) + ":"),
                ("Repr-Digest", "sha-256=:" + Base64Of(32)),
            })
            {
                cases.Add(name, value, protocol);
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(MalformedFields))]
    public async Task Put_MalformedDigestField_Returns400AndStoresNothing(string name, string value, Protocol protocol)
    {
        var key = $"{NewRoot()}/malformed.bin";

        using var response = await PutAsync(key, protocol, (name, value));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
        await AssertAbsentAsync(server, key);
    }

    /// <summary>RFC 9530 §2: algorithms the server does not know are ignored, however long or odd their keys (within the header limits).</summary>
    [Theory]
    [InlineData("unknown-alg=:AAAA:")]
    [InlineData("md5=:AAAA:")]
    [InlineData("sha=:AAAA:, crc32c=:AAAA:")]
    public async Task Put_OnlyUnknownAlgorithms_IsStored(string field)
    {
        var key = $"{NewRoot()}/unknown.bin";

        using var response = await PutAsync(key, Protocol.Http11, ("Content-Digest", field));

        await AssertStatusAsync(response, HttpStatusCode.Created);
        await AssertStoredAsync(server, key, s_content);
    }

    [Fact]
    public async Task Put_UnknownAlgorithmWithA10KiBKey_IsStored()
    {
        var key = $"{NewRoot()}/long-key.bin";

        using var response = await PutAsync(key, Protocol.Http11, ("Content-Digest", new string('a', 10 * 1024) + "=:AAAA:"));

        await AssertStatusAsync(response, HttpStatusCode.Created);
        await AssertStoredAsync(server, key, s_content);
    }

    /// <summary>A right sha-256 beside a wrong sha-512, over HTTP/2 too: a mismatch is a mismatch, nothing is stored and an existing file stays.</summary>
    [Theory]
    [InlineData(Protocol.Http11)]
    [InlineData(Protocol.Http2)]
    public async Task Put_OneOfTwoDigestsWrongOverExistingFile_Returns400AndKeepsTheOldFile(Protocol protocol)
    {
        var key = $"{NewRoot()}/kept.bin";
        var old = Content(1000, seed: 72);
        await FilesApi.CreateAsync(server, key, old);
        var wrongSha512 = "sha-512=:" + Convert.ToBase64String(SHA512.HashData(old)) + ":";

        using var response = await PutAsync(key, protocol, ("Repr-Digest", Sha256Field(s_content) + ", " + wrongSha512));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
        Assert.Contains("\"title\":\"Digest mismatch\"", await response.Content.ReadAsStringAsync(), StringComparison.Ordinal);
        await AssertStoredAsync(server, key, old);
    }

    /// <summary>
    /// Want-*-Digest preferences (RFC 9530 §4) are weights 0–10: anything else — huge, negative, fractional, not a number,
    /// not a dictionary — is no preference. The file is served whole and unchanged, with no digest computed for it.
    /// </summary>
    [Theory]
    [InlineData("sha-256=99999999999999999999")]
    [InlineData("sha-256=11")]
    [InlineData("sha-256=-1")]
    [InlineData("sha-256=1.5")]
    [InlineData("sha-256=?1")]
    [InlineData("sha-256=:AAAA:")]
    [InlineData("(")]
    [InlineData("sha-256=0")]
    [InlineData("md5=10")]
    public async Task Get_WantReprDigestOutOfRangeOrMalformed_ServesTheFileWithoutDigest(string preference)
    {
        var key = $"{NewRoot()}/wanted.bin";
        await FilesApi.CreateAsync(server, key, s_content);

        foreach (var protocol in new[] { Protocol.Http11, Protocol.Http2 })
        {
            using var request = server.Request(HttpMethod.Get, protocol, "/files/" + key);
            Assert.True(request.Headers.TryAddWithoutValidation("Want-Repr-Digest", preference));
            Assert.True(request.Headers.TryAddWithoutValidation("Want-Content-Digest", preference));
            using var response = await server.Client.SendAsync(request);

            await AssertStatusAsync(response, HttpStatusCode.OK);
            Assert.False(response.Headers.Contains("Repr-Digest"));
            Assert.Equal(s_content, await response.Content.ReadAsByteArrayAsync());
        }

        var listed = await ListedAsync(server, key);
        Assert.Equal(System.Text.Json.JsonValueKind.Null, listed!.Value.GetProperty("sha256").ValueKind);
    }

    private async Task<HttpResponseMessage> PutAsync(string key, Protocol protocol, params (string Name, string Value)[] headers)
    {
        using var request = Put(server, key, s_content, protocol);
        foreach (var (name, value) in headers)
        {
            Assert.True(request.Headers.TryAddWithoutValidation(name, value), name);
        }

        return await server.Client.SendAsync(request);
    }
}

public sealed class HostileDigestFileSystemTests(FileSystemFilesServer server) : HostileDigestTests(server), IClassFixture<FileSystemFilesServer>;

public sealed class HostileDigestMemoryTests(MemoryFilesServer server) : HostileDigestTests(server), IClassFixture<MemoryFilesServer>;

public sealed class HostileDigestS3Tests(S3FilesServer server) : HostileDigestTests(server), IClassFixture<S3FilesServer>;
