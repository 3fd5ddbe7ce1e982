using System.Net;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Files;

/// <summary>
/// Behind a reverse proxy every request comes from the proxy's address: with <c>Freight:TrustedProxies</c> the per-client
/// upload limit counts the clients its <c>X-Forwarded-For</c> names; without it the header is ignored, since any client
/// can forge it. One upload in flight per client, held open on a raw connection.
/// </summary>
public sealed class FilesTrustedProxyTests(FilesTrustedProxyTests.TrustedProxyServer trusted, LimiterFilesServer untrusted)
    : IClassFixture<FilesTrustedProxyTests.TrustedProxyServer>, IClassFixture<LimiterFilesServer>
{
    private const int Declared = 2 * Payloads.MiB;

    [Fact]
    public async Task Put_BehindATrustedProxy_EachForwardedClientHasItsOwnSlot()
    {
        var root = NewRoot();
        await using var held = await HoldUploadAsync(trusted, $"{root}/held.bin", "10.0.0.1");

        using (var otherClient = await PutAsync(trusted, $"{root}/other.bin", Content(1000, seed: 31), ("X-Forwarded-For", "10.0.0.2")))
        {
            await AssertStatusAsync(otherClient, HttpStatusCode.Created);
        }

        using var sameClient = await PutAsync(trusted, $"{root}/same.bin", Content(1000, seed: 32), ("X-Forwarded-For", "10.0.0.1"));
        await ProblemAssert.IsProblemAsync(sameClient, HttpStatusCode.TooManyRequests);
    }

    [Fact]
    public async Task Put_ForwardedForFromAnUntrustedPeer_IsIgnored()
    {
        var root = NewRoot();
        await using var held = await HoldUploadAsync(untrusted, $"{root}/held.bin", "10.0.0.1");

        using var forged = await PutAsync(untrusted, $"{root}/forged.bin", Content(1000, seed: 33), ("X-Forwarded-For", "10.0.0.2"));

        await ProblemAssert.IsProblemAsync(forged, HttpStatusCode.TooManyRequests);
        Assert.Null(await ListedAsync(untrusted, $"{root}/forged.bin"));
    }

    /// <summary>
    /// A proxy that terminates TLS says <c>X-Forwarded-Proto: https</c>, which makes the request's scheme https, but its
    /// connection to serve is cleartext: a large body still goes by sendfile (the scheme had turned it off).
    /// </summary>
    [Fact]
    public async Task Get_ForwardedProtoHttpsOverCleartext_SendsTheFileBySendfile()
    {
        var key = $"{NewRoot()}/big.bin";
        var content = Content(3 * Payloads.MiB, seed: 36);
        await CreateAsync(trusted, key, content);
        using var sendfile = new PortMeter("freight.sendfile.bytes", trusted.HttpAddress);

        using var response = await SendAsync(trusted, HttpMethod.Get, "/files/" + key, ("X-Forwarded-Proto", "https"));

        await AssertStatusAsync(response, HttpStatusCode.OK);
        Assert.Equal(content, await response.Content.ReadAsByteArrayAsync());
        Assert.Equal(content.Length, sendfile.Sum);
    }

    /// <summary>
    /// Behind <c>location /freight/ { proxy_pass http://freight/; proxy_set_header X-Forwarded-Prefix /freight; }</c>
    /// serve sees <c>/files/…</c>, but the client knows only <c>/freight/files/…</c>: every URL serve hands out (a PUT's
    /// Location, a tus upload's Location, a finished upload's Content-Location, the 404's listing hint) carries the prefix.
    /// </summary>
    [Fact]
    public async Task Urls_ForwardedPrefixFromATrustedProxy_StartWithThePrefix()
    {
        var urls = await HandedOutUrlsAsync(trusted, NewRoot());

        Assert.Equal(
            [$"/freight/files/{urls.Root}/pre/x.txt", "/freight/tus/" + urls.UploadId, $"/freight/files/{urls.Root}/done.bin", $"GET /freight/files?prefix={urls.Root}/pre lists it."],
            [urls.FileLocation, urls.UploadLocation, urls.ContentLocation, urls.NotFoundHint]);
    }

    [Fact]
    public async Task Urls_ForwardedPrefixFromAnUntrustedPeer_IsIgnored()
    {
        var urls = await HandedOutUrlsAsync(untrusted, NewRoot());

        Assert.Equal(
            [$"/files/{urls.Root}/pre/x.txt", "/tus/" + urls.UploadId, $"/files/{urls.Root}/done.bin", $"GET /files?prefix={urls.Root}/pre lists it."],
            [urls.FileLocation, urls.UploadLocation, urls.ContentLocation, urls.NotFoundHint]);
    }

    /// <summary>
    /// The URLs serve answers requests with, each sent with <c>X-Forwarded-Prefix: /freight</c> to the paths serve itself
    /// has (a proxy strips the prefix): a PUT, a tus creation and its one PATCH, a GET of a folder.
    /// </summary>
    private static async Task<HandedOutUrls> HandedOutUrlsAsync(FilesServer server, string root)
    {
        var prefix = ("X-Forwarded-Prefix", "/freight");
        using var put = await PutAsync(server, $"{root}/pre/x.txt", Content(10, seed: 34), prefix);
        await AssertStatusAsync(put, HttpStatusCode.Created);

        using var create = await SendAsync(server, HttpMethod.Post, "/tus/", prefix, ("Tus-Resumable", "1.0.0"), ("Upload-Length", "3"),
            ("Upload-Metadata", "filename " + Convert.ToBase64String(System.Text.Encoding.UTF8.GetBytes($"{root}/done.bin"))));
        await AssertStatusAsync(create, HttpStatusCode.Created);
        var uploadLocation = create.Headers.Location!.OriginalString;
        var id = uploadLocation[(uploadLocation.LastIndexOf('/') + 1)..];
        using (var patch = server.Request(HttpMethod.Patch, Infrastructure.Protocol.Http11, "/tus/" + id))
        {
            patch.Headers.Add(prefix.Item1, prefix.Item2);
            patch.Headers.Add("Tus-Resumable", "1.0.0");
            patch.Headers.Add("Upload-Offset", "0");
            patch.Content = new ByteArrayContent(Content(3, seed: 35));
            patch.Content.Headers.ContentType = new System.Net.Http.Headers.MediaTypeHeaderValue("application/offset+octet-stream");
            using var patched = await server.Client.SendAsync(patch);
            await AssertStatusAsync(patched, HttpStatusCode.NoContent);
        }

        using var head = await SendAsync(server, HttpMethod.Head, "/tus/" + id, prefix, ("Tus-Resumable", "1.0.0"));
        await AssertStatusAsync(head, HttpStatusCode.OK);

        using var folder = await SendAsync(server, HttpMethod.Get, $"/files/{root}/pre", prefix);
        await ProblemAssert.IsProblemAsync(folder, HttpStatusCode.NotFound);
        using var problem = System.Text.Json.JsonDocument.Parse(await folder.Content.ReadAsStringAsync());
        var detail = problem.RootElement.GetProperty("detail").GetString()!;

        return new HandedOutUrls(root, id, put.Headers.Location!.OriginalString, uploadLocation, head.Content.Headers.ContentLocation?.OriginalString ?? "(none)", detail[detail.IndexOf("GET ", StringComparison.Ordinal)..]);
    }

    private sealed record HandedOutUrls(string Root, string UploadId, string FileLocation, string UploadLocation, string ContentLocation, string NotFoundHint);

    /// <summary>A PUT from <paramref name="forwardedFor"/> that has sent half its body and waits: its slot is taken.</summary>
    private static async Task<RawHttpConnection> HoldUploadAsync(FilesServer server, string key, string forwardedFor)
    {
        var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);
        await connection.SendAsync(RawHttpConnection.Head("PUT", server.HttpAddress, "/files/" + key, "Content-Length: " + Declared.ToString(System.Globalization.CultureInfo.InvariantCulture), "X-Forwarded-For: " + forwardedFor));
        await connection.SendAsync(Content(Declared / 2, seed: 30));
        Assert.True(await EventuallyAsync(() => server.FilesTempFiles().Any(temp => new FileInfo(temp).Length > 0)), "the held upload never started writing");
        return connection;
    }

    public sealed class TrustedProxyServer() : FilesServer("--Freight:Files:MaxConcurrentUploadsPerClient", "1", "--Freight:TrustedProxies:0", "127.0.0.1");
}
