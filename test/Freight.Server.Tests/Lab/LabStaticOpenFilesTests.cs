using System.Net;
using System.Net.Http.Headers;
using Freight.Lab.Payload;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Lab;

/// <summary>A server that keeps every file open between requests (no content cached) and trusts an entry for a fifth of a second.</summary>
public sealed class KeptOpenStaticServer() : ServerHarness(
    "--Freight:FileCache:MaxCachedFileBytes", "0", "--Freight:FileCache:RevalidateAfter", "00:00:00.2");

/// <summary>
/// Freight's file path serving from a file the cache keeps open: concurrent whole and ranged GETs over HTTP/1.1 (by
/// sendfile) and HTTP/2 (read and copied) share one handle and each gets exactly its bytes; a file replaced behind the
/// server's back shows once the entry is revalidated, and every response is wholly one version, never a mix.
/// </summary>
public sealed class LabStaticOpenFilesTests(KeptOpenStaticServer server) : IClassFixture<KeptOpenStaticServer>
{
    private static int s_file;

    private string StaticDirectory => Path.Combine(server.DataDirectory, "lab", "static");

    private string Place(byte[] bytes, string? name = null)
    {
        name ??= $"kept-{Interlocked.Increment(ref s_file)}.bin";
        var temp = Path.Combine(StaticDirectory, $".{name}.{Guid.NewGuid():N}.test-tmp");
        File.WriteAllBytes(temp, bytes);
        File.Move(temp, Path.Combine(StaticDirectory, name), overwrite: true);
        return name;
    }

    private async Task<(HttpStatusCode Status, byte[] Body)> GetAsync(string name, Protocol protocol, RangeHeaderValue? range = null)
    {
        using var request = server.Request(HttpMethod.Get, protocol, $"/lab/static/freight/{name}");
        request.Headers.Range = range;
        using var response = await server.Client.SendAsync(request);
        return (response.StatusCode, await response.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task Get_ManyAtOnceWholeAndRanged_EachGetsItsBytes()
    {
        var content = DeterministicPayload.Create(300_000, seed: 71);
        var name = Place(content);
        Assert.Equal(content, (await GetAsync(name, Protocol.Http11)).Body);

        var requests = Enumerable.Range(0, 48).Select(async i =>
        {
            var protocol = i % 2 == 0 ? Protocol.Http11 : Protocol.Http2;
            if (i % 3 == 0)
            {
                var (status, body) = await GetAsync(name, protocol);
                Assert.Equal(HttpStatusCode.OK, status);
                Assert.Equal(content, body);
            }
            else
            {
                var from = (i * 5_000) % 200_000;
                var (status, body) = await GetAsync(name, protocol, new RangeHeaderValue(from, from + 99_999));
                Assert.Equal(HttpStatusCode.PartialContent, status);
                Assert.Equal(content.AsSpan(from, 100_000).ToArray(), body);
            }
        });

        await Task.WhenAll(requests);
    }

    [Theory]
    [InlineData(Protocol.Http11)]
    [InlineData(Protocol.Http2)]
    public async Task Get_FileReplacedBehindTheServersBack_ShowsAfterRevalidationAndNeverMixes(Protocol protocol)
    {
        var old = DeterministicPayload.Create(200_000, seed: 72);
        var name = Place(old);
        Assert.Equal(old, (await GetAsync(name, protocol)).Body);
        Assert.Equal(old, (await GetAsync(name, protocol)).Body);

        var replacement = DeterministicPayload.Create(150_000, seed: 73);
        Place(replacement, name);

        // Until the entry is looked at again (0.2 s) the kept handle may still serve the old version, whole.
        var seenNew = false;
        for (var attempt = 0; attempt < 100 && !seenNew; attempt++)
        {
            var (status, body) = await GetAsync(name, protocol);
            Assert.Equal(HttpStatusCode.OK, status);
            seenNew = body.AsSpan().SequenceEqual(replacement);
            Assert.True(seenNew || body.AsSpan().SequenceEqual(old), $"A response of {body.Length} bytes was neither version.");
            if (!seenNew)
            {
                await Task.Delay(50);
            }
        }

        Assert.True(seenNew, "The replaced file never showed.");
    }

    [Fact]
    public async Task Get_FileDeletedBehindTheServersBack_404AfterRevalidation()
    {
        var name = Place(DeterministicPayload.Create(200_000, seed: 74));
        Assert.Equal(HttpStatusCode.OK, (await GetAsync(name, Protocol.Http11)).Status);

        File.Delete(Path.Combine(StaticDirectory, name));

        var status = HttpStatusCode.OK;
        for (var attempt = 0; attempt < 100 && status == HttpStatusCode.OK; attempt++)
        {
            status = (await GetAsync(name, Protocol.Http11)).Status;
            if (status == HttpStatusCode.OK)
            {
                await Task.Delay(50);
            }
        }

        Assert.Equal(HttpStatusCode.NotFound, status);
    }
}
