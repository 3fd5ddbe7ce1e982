using System.Net;
using Freight.Lab.Payload;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Lab;

/// <summary>A server that checks every file on every request (<c>RevalidateAfter</c> 0), small files still cached whole.</summary>
public sealed class RevalidatingStaticServer() : ServerHarness("--Freight:FileCache:RevalidateAfter", "00:00:00");

/// <summary>A server that checks every file on every request and caches no content: every body is read from disk.</summary>
public sealed class UncachedStaticServer() : ServerHarness("--Freight:FileCache:RevalidateAfter", "00:00:00", "--Freight:FileCache:MaxCachedFileBytes", "0");

/// <summary>Files replaced or deleted behind the server's back, with the file cache revalidating on every request.</summary>
public sealed class LabStaticRevalidatingTests(RevalidatingStaticServer server) : LabStaticChangeTests(server), IClassFixture<RevalidatingStaticServer>;

/// <summary>The same changes with no content cached: headers and bytes both come from the open file.</summary>
public sealed class LabStaticUncachedTests(UncachedStaticServer server) : LabStaticChangeTests(server), IClassFixture<UncachedStaticServer>;

/// <summary>
/// A file replaced atomically (a new file renamed over it) or deleted between two requests: the next
/// response is wholly the new file (bytes, length, ETag, Last-Modified from one version), or a 404.
/// Every replacement gets its own modification time, whole seconds apart, so its validators differ from
/// every earlier version's whatever the file system's timestamp resolution.
/// </summary>
public abstract class LabStaticChangeTests(ServerHarness server)
{
    private const string Name = "4096.bin";

    private static readonly DateTime BaseTime = new(2026, 1, 1, 0, 0, 0, DateTimeKind.Utc);
    private static int s_version;

    public static TheoryData<string, Protocol> VariantProtocol()
    {
        var cases = new TheoryData<string, Protocol>();
        foreach (var variant in LabStaticTests.Variants)
        {
            cases.Add(variant, Protocol.Http11);
            cases.Add(variant, Protocol.Http2);
        }

        return cases;
    }

    private string StaticDirectory => Path.Combine(server.DataDirectory, "lab", "static");

    /// <summary>A version of a file: its bytes and its modification time (whole seconds).</summary>
    private sealed record Version(byte[] Bytes, DateTimeOffset LastModified);

    /// <summary>Writes a new version to a temp file beside <paramref name="name"/>, dates it, and renames it over the file.</summary>
    private Version Replace(string name, int length)
    {
        var number = Interlocked.Increment(ref s_version);
        var bytes = DeterministicPayload.Create(length, seed: (ulong)number + 1000);
        var lastWrite = BaseTime.AddSeconds(10 * number);
        Place(name, bytes, lastWrite);
        return new Version(bytes, new DateTimeOffset(lastWrite));
    }

    private void Place(string name, byte[] bytes, DateTime lastWriteUtc)
    {
        var temp = Path.Combine(StaticDirectory, $".{name}.{Guid.NewGuid():N}.test-tmp");
        File.WriteAllBytes(temp, bytes);
        File.SetLastWriteTimeUtc(temp, lastWriteUtc);
        File.Move(temp, Path.Combine(StaticDirectory, name), overwrite: true);
    }

    private async Task<(HttpStatusCode Status, byte[] Body, long? Length, string? ETag, DateTimeOffset? LastModified)> GetAsync(string variant, Protocol protocol, string name = Name, string? ifNoneMatch = null)
    {
        using var request = server.Request(HttpMethod.Get, protocol, $"/lab/static/{variant}/{name}");
        if (ifNoneMatch is not null)
        {
            request.Headers.TryAddWithoutValidation("If-None-Match", ifNoneMatch);
        }

        using var response = await server.Client.SendAsync(request);
        var body = await response.Content.ReadAsByteArrayAsync();
        var etag = response.Headers.NonValidated.TryGetValues("ETag", out var values) ? Assert.Single(values) : null;
        return (response.StatusCode, body, response.Content.Headers.ContentLength, etag, response.Content.Headers.LastModified);
    }

    private static void AssertIsVersion(Version expected, (HttpStatusCode Status, byte[] Body, long? Length, string? ETag, DateTimeOffset? LastModified) response)
    {
        Assert.Equal(HttpStatusCode.OK, response.Status);
        Assert.Equal(expected.Bytes.Length, response.Length);
        Assert.Equal(expected.Bytes, response.Body);
        Assert.Equal(expected.LastModified, response.LastModified);
        StaticAssert.IsStrongEntityTag(response.ETag);
    }

    [Theory]
    [MemberData(nameof(VariantProtocol))]
    public async Task Get_FileReplacedWithSameLength_ServesTheNewBytesAndANewETag(string variant, Protocol protocol)
    {
        var before = Replace(Name, 4096);
        var first = await GetAsync(variant, protocol);
        AssertIsVersion(before, first);

        var after = Replace(Name, 4096);
        var second = await GetAsync(variant, protocol);

        AssertIsVersion(after, second);
        Assert.NotEqual(first.ETag, second.ETag);
    }

    [Theory]
    [MemberData(nameof(VariantProtocol))]
    public async Task Get_FileReplacedWithOtherLengths_ServesEachWholeNewFile(string variant, Protocol protocol)
    {
        var etags = new HashSet<string>(StringComparer.Ordinal);

        // Shorter, longer, then past the cache's 64 KiB per-file limit and back: every version whole, every tag new.
        foreach (var length in new[] { 4096, 3000, 5000, 200_000, 1, 4096 })
        {
            var version = Replace(Name, length);
            var response = await GetAsync(variant, protocol);

            AssertIsVersion(version, response);
            Assert.True(etags.Add(response.ETag!), $"The ETag {response.ETag} was sent for an earlier version too.");
        }
    }

    [Theory]
    [MemberData(nameof(VariantProtocol))]
    public async Task Get_FileReplacedWithEmptyFile_200WithZeroLength(string variant, Protocol protocol)
    {
        Replace(Name, 4096);
        await GetAsync(variant, protocol);

        var empty = Replace(Name, 0);
        var response = await GetAsync(variant, protocol);

        AssertIsVersion(empty, response);
    }

    [Theory]
    [MemberData(nameof(VariantProtocol))]
    public async Task Get_IfNoneMatchOldETagAfterReplace_200WithTheNewFile(string variant, Protocol protocol)
    {
        Replace(Name, 4096);
        var old = await GetAsync(variant, protocol);
        var current = Replace(Name, 4096);

        var response = await GetAsync(variant, protocol, ifNoneMatch: old.ETag);

        AssertIsVersion(current, response);
    }

    [Theory]
    [MemberData(nameof(VariantProtocol))]
    public async Task Head_FileReplacedWithOtherLength_SendsTheNewHeaders(string variant, Protocol protocol)
    {
        Replace(Name, 4096);
        await GetAsync(variant, protocol);
        var current = Replace(Name, 6000);
        using var request = server.Request(HttpMethod.Head, protocol, $"/lab/static/{variant}/{Name}");

        using var response = await server.Client.SendAsync(request);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(6000, response.Content.Headers.ContentLength);
        Assert.Equal(current.LastModified, response.Content.Headers.LastModified);
        Assert.Empty(await response.Content.ReadAsByteArrayAsync());
    }

    [Theory]
    [MemberData(nameof(VariantProtocol))]
    public async Task Get_FileDeletedAfterAGet_404(string variant, Protocol protocol)
    {
        var name = $"deleted-{variant}-{protocol}.bin";
        var version = Replace(name, 4096);
        AssertIsVersion(version, await GetAsync(variant, protocol, name));

        File.Delete(Path.Combine(StaticDirectory, name));
        var response = await GetAsync(variant, protocol, name);

        Assert.Equal(HttpStatusCode.NotFound, response.Status);
        Assert.Null(response.ETag);
        Assert.DoesNotContain(version.Bytes.AsSpan(0, 64).ToArray(), Windows(response.Body));
    }

    [Theory]
    [MemberData(nameof(VariantProtocol))]
    public async Task Get_FileDeletedThenRecreated_ServesTheNewFile(string variant, Protocol protocol)
    {
        var name = $"recreated-{variant}-{protocol}.bin";
        Replace(name, 4096);
        await GetAsync(variant, protocol, name);
        File.Delete(Path.Combine(StaticDirectory, name));
        Assert.Equal(HttpStatusCode.NotFound, (await GetAsync(variant, protocol, name)).Status);

        var version = Replace(name, 4096);
        var response = await GetAsync(variant, protocol, name);

        AssertIsVersion(version, response);
    }

    /// <summary>
    /// Two versions of one length swapped over and over while requests run: each response is one version
    /// whole, its bytes, Last-Modified and ETag from that same version (a cached body under a new file's
    /// headers, or the reverse, fails here).
    /// </summary>
    [Theory]
    [InlineData(4096)]
    [InlineData(131072)]
    public async Task Get_WhileTheFileIsReplacedRepeatedly_EveryResponseIsOneWholeVersion(int length)
    {
        var name = $"swapped-{length}.bin";
        var a = new Version(DeterministicPayload.Create(length, seed: 1), new DateTimeOffset(BaseTime.AddDays(-1)));
        var b = new Version(DeterministicPayload.Create(length, seed: 2), new DateTimeOffset(BaseTime.AddDays(-2)));
        Place(name, a.Bytes, a.LastModified.UtcDateTime);
        var etagOf = new Dictionary<DateTimeOffset, string>();
        using var done = new CancellationTokenSource();

        var writer = Task.Run(() =>
        {
            try
            {
                for (var i = 0; i < 200; i++)
                {
                    var next = i % 2 == 0 ? b : a;
                    Place(name, next.Bytes, next.LastModified.UtcDateTime);
                }
            }
            finally
            {
                done.Cancel();
            }
        });

        var responses = 0;
        while (!done.IsCancellationRequested || responses < 20)
        {
            var response = await GetAsync("freight", Protocol.Http11, name);
            var version = response.LastModified == a.LastModified ? a : b;

            AssertIsVersion(version, response);
            if (etagOf.TryGetValue(version.LastModified, out var known))
            {
                Assert.Equal(known, response.ETag);
            }
            else
            {
                etagOf[version.LastModified] = response.ETag!;
            }

            responses++;
        }

        await writer;
        Assert.True(etagOf.Count < 2 || etagOf[a.LastModified] != etagOf[b.LastModified], "Both versions were sent with one ETag.");
    }

    private static IEnumerable<byte[]> Windows(byte[] body)
    {
        for (var offset = 0; offset + 64 <= body.Length; offset++)
        {
            yield return body[offset..(offset + 64)];
        }
    }
}
