using System.Net;
using System.Security.Cryptography;
using Freight.Server.Tests.Infrastructure;
using Freight.Testing.Rgw;
using static Freight.Server.Tests.Files.FilesApi;
using static Freight.Server.Tests.Tus.TusApi;

namespace Freight.Server.Tests.Tus;

/// <summary>
/// Two <c>freight serve</c> nodes on one bucket, each with a data directory of its own: upload state lives in the
/// store, not in a node, so an upload begun on one node resumes on the other — including the bytes of a PATCH too
/// short for an S3 part (under 5 MiB), which the store must keep somewhere both nodes see — and both serve the
/// finished file with the same bytes and ETag.
/// </summary>
public sealed class TusS3TwoNodeTests : IAsyncLifetime
{
    private const int MiB = Payloads.MiB;

    private readonly HttpClient _client = new() { Timeout = TimeSpan.FromMinutes(2) };
    private readonly List<string> _directories = [];
    private RgwBucket? _bucket;
    private FreightProcess? _nodeA;
    private FreightProcess? _nodeB;
    private Uri _a = null!;
    private Uri _b = null!;

    public async Task InitializeAsync()
    {
        _bucket = await SharedRgw.CreateBucketAsync(nameof(TusS3TwoNodeTests));
        (_nodeA, _a) = await StartNodeAsync();
        (_nodeB, _b) = await StartNodeAsync();
    }

    public async Task DisposeAsync()
    {
        _client.Dispose();
        foreach (var node in new[] { _nodeA, _nodeB })
        {
            if (node is not null)
            {
                await node.DisposeAsync();
            }
        }

        foreach (var directory in _directories)
        {
            Directory.Delete(directory, recursive: true);
        }

        if (_bucket is not null)
        {
            await _bucket.DisposeAsync();
        }
    }

    [Theory]
    [InlineData(7 * MiB)]
    [InlineData(1 * MiB)]
    public async Task Upload_BegunOnNodeAFinishedOnNodeB_BothNodesServeTheSameFile(int firstPatch)
    {
        var content = Content((12 * MiB) + 3, seed: (ulong)firstPatch);
        var key = NewFileName();
        var path = await CreateOnAsync(_a, content.Length, key);

        await PatchOnAsync(_a, path, 0, content[..firstPatch]);
        Assert.Equal(firstPatch, await OffsetOnAsync(_b, path));
        await AssertNoFileOnAsync(_a, key);
        await AssertNoFileOnAsync(_b, key);
        using (var last = await PatchOnAsync(_b, path, firstPatch, content[firstPatch..]))
        {
            Assert.Equal("/files/" + key, Header(last, "Content-Location"));
        }

        Assert.Equal(content.Length, await OffsetOnAsync(_a, path));
        await AssertFileOnAsync(_a, key, content);
        await AssertFileOnAsync(_b, key, content);
    }

    [Fact]
    public async Task Upload_PatchesAlternatingBetweenNodes_EachNodeResumesWhereTheOtherStopped()
    {
        // 3 MiB chunks: every one below S3's 5 MiB part floor, so each node takes over a buffered tail.
        var content = Content((12 * MiB) + 3, seed: 201);
        var key = NewFileName();
        var path = await CreateOnAsync(_b, content.Length, key);
        var nodes = new[] { _a, _b };

        for (int offset = 0, turn = 0; offset < content.Length; offset += 3 * MiB, turn++)
        {
            var node = nodes[turn % 2];
            Assert.Equal(offset, await OffsetOnAsync(node, path));
            using var _ = await PatchOnAsync(node, path, offset, content[offset..Math.Min(content.Length, offset + (3 * MiB))]);
        }

        await AssertFileOnAsync(_a, key, content);
        await AssertFileOnAsync(_b, key, content);
    }

    private async Task<(FreightProcess Node, Uri Address)> StartNodeAsync()
    {
        var directory = Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(directory);
        _directories.Add(directory);
        var node = FreightProcess.StartServe(directory, ["--urls", "http://127.0.0.1:0", "--data-dir", directory, .. _bucket!.FreightArguments()]);
        var lines = await node.ReadUntilListeningAsync(1);
        return (node, new Uri(lines.Single(l => l.StartsWith("listening: ", StringComparison.Ordinal))["listening: ".Length..]));
    }

    private async Task<HttpResponseMessage> SendAsync(Uri node, HttpMethod method, string path, HttpContent? body, params (string Name, string Value)[] headers)
    {
        using var request = new HttpRequestMessage(method, new Uri(node, path)) { Content = body };
        request.Headers.Add("Tus-Resumable", TusApi.Version);
        foreach (var (name, value) in headers)
        {
            request.Headers.Add(name, value);
        }

        return await _client.SendAsync(request);
    }

    private async Task<string> CreateOnAsync(Uri node, int length, string key)
    {
        using var created = await SendAsync(node, HttpMethod.Post, "/tus/", null, ("Upload-Length", Invariant(length)), ("Upload-Metadata", Metadata(("filename", key))));
        return await CreatedAsync(created);
    }

    /// <summary>A PATCH asserted 204 with the new offset; the caller disposes the response.</summary>
    private async Task<HttpResponseMessage> PatchOnAsync(Uri node, string path, long offset, byte[] chunk)
    {
        var response = await SendAsync(node, HttpMethod.Patch, path, Body(chunk), ("Upload-Offset", Invariant(offset)));
        await AssertStatusAsync(response, HttpStatusCode.NoContent);
        Assert.Equal(offset + chunk.Length, Offset(response));
        return response;
    }

    private async Task<long> OffsetOnAsync(Uri node, string path)
    {
        using var response = await SendAsync(node, HttpMethod.Head, path, null);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        return Offset(response);
    }

    private async Task AssertNoFileOnAsync(Uri node, string key)
    {
        using var response = await _client.GetAsync(new Uri(node, "/files/" + key));
        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
    }

    /// <summary>The node serves exactly <paramref name="content"/> at <paramref name="key"/>: SHA-256 of the body, the ETag a PUT gets, the Repr-Digest.</summary>
    private async Task AssertFileOnAsync(Uri node, string key, byte[] content)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, new Uri(node, "/files/" + key));
        request.Headers.Add("Want-Repr-Digest", "sha-256=1");
        using var response = await _client.SendAsync(request);
        await AssertStatusAsync(response, HttpStatusCode.OK);
        Assert.Equal(ETag(content), response.Headers.ETag?.ToString());
        Assert.Equal(Sha256Field(content), Assert.Single(response.Headers.GetValues("Repr-Digest")));
        var body = await response.Content.ReadAsByteArrayAsync();
        Assert.Equal(content.Length, body.Length);
        Assert.Equal(SHA256.HashData(content), SHA256.HashData(body));
    }
}
