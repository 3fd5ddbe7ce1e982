using System.Net;
using System.Net.Http.Headers;
using System.Net.Sockets;
using System.Text;
using System.Text.Json;
using Freight.Bench.Peers;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Hosting;

/// <summary>
/// <c>freight serve</c> behind a real nginx running the repository's <c>deploy/nginx/freight.conf</c>, changed only in
/// its two addresses (serve's port, nginx's own): uploads and downloads pass whole and as they arrive, a tus creation
/// without a body reaches serve, the per-client limit sees each client nginx names, and the sub-path mount's URLs carry
/// the prefix. Clients other than 127.0.0.1 bind 127.0.0.2 and 127.0.0.3 (every 127.x address is this machine's), as
/// <c>curl --interface</c> does. These tests fail, never skip, when nginx is missing, as the bench's nginx tests do.
/// </summary>
public sealed class NginxProxyTests(NginxProxyTests.ProxiedServe proxy) : IClassFixture<NginxProxyTests.ProxiedServe>
{
    private static readonly IPAddress s_clientA = IPAddress.Parse("127.0.0.2");
    private static readonly IPAddress s_clientB = IPAddress.Parse("127.0.0.3");

    [Fact]
    public async Task PutAndGet_SomeMiBThroughNginx_SameBytesWholeAndInARange()
    {
        var key = $"{NewRoot()}/big.bin";
        var content = Content((6 * Payloads.MiB) + 5, seed: 40);
        using var client = ClientFrom(IPAddress.Loopback);

        using var put = new HttpRequestMessage(HttpMethod.Put, proxy.Url("/files/" + key)) { Content = new ByteArrayContent(content) };
        put.Headers.Add("Content-Digest", Sha256Field(content));
        using var stored = await client.SendAsync(put);
        await AssertStatusAsync(stored, HttpStatusCode.Created);
        Assert.Equal("/files/" + key, stored.Headers.Location?.OriginalString);

        using var get = new HttpRequestMessage(HttpMethod.Get, proxy.Url("/files/" + key));
        get.Headers.Add("Want-Repr-Digest", "sha-256=1");
        using var whole = await client.SendAsync(get);
        await AssertStatusAsync(whole, HttpStatusCode.OK);
        var body = await whole.Content.ReadAsByteArrayAsync();
        Assert.Equal(Sha256Field(content), Sha256Field(body));
        Assert.Equal(Sha256Field(content), string.Join(',', whole.Headers.GetValues("Repr-Digest")));

        using var ranged = new HttpRequestMessage(HttpMethod.Get, proxy.Url("/files/" + key));
        ranged.Headers.Range = new RangeHeaderValue(Payloads.MiB, (3 * Payloads.MiB) - 1);
        using var part = await client.SendAsync(ranged);
        await AssertStatusAsync(part, HttpStatusCode.PartialContent);
        Assert.Equal(content[Payloads.MiB..(3 * Payloads.MiB)], await part.Content.ReadAsByteArrayAsync());
    }

    /// <summary>
    /// Passed through as it arrives (proxy_request_buffering off), a PUT's head reaches serve before its body, and the
    /// 412 comes back while the body has not been sent: spooled, nginx would wait for all 64 MiB first.
    /// </summary>
    [Fact]
    public async Task Put_WrongIfMatchThroughNginx_RefusedBeforeTheBodyIsSent()
    {
        await using var connection = await RawHttpConnection.OpenAsync(proxy.Address);

        await connection.SendAsync(RawHttpConnection.Head("PUT", proxy.Address, $"/files/{NewRoot()}/cond.bin", "If-Match: \"nope\"", "Content-Length: " + Invariant(64 * Payloads.MiB)));
        var response = await connection.ReadResponseAsync();

        ProblemAssert.IsProblem(response, HttpStatusCode.PreconditionFailed);
    }

    /// <summary>
    /// curl's tus creation: a POST with no body and no Content-Length. nginx's default HTTP/1.0 to the upstream sent it
    /// on without a length, which Kestrel refuses (400); over HTTP/1.1 (proxy_http_version) it is an upload.
    /// </summary>
    [Fact]
    public async Task Tus_CreationWithoutABodyThenAPatch_LandsAsTheFile()
    {
        var name = $"{NewRoot()}/tus.bin";
        var content = Content((3 * Payloads.MiB) + 1, seed: 41);
        RawHttpResponse created;
        await using (var connection = await RawHttpConnection.OpenAsync(proxy.Address))
        {
            await connection.SendAsync(RawHttpConnection.Head("POST", proxy.Address, "/tus/", "Tus-Resumable: 1.0.0", "Upload-Length: " + Invariant(content.Length), "Upload-Metadata: filename " + Convert.ToBase64String(Encoding.UTF8.GetBytes(name))));
            created = await connection.ReadResponseAsync();
        }

        Assert.True(created.StatusCode == 201, $"expected 201, got {created.StatusCode}: {created.BodyText}");
        var upload = created.Header("Location")!;
        Assert.StartsWith("/tus/", upload, StringComparison.Ordinal);
        using var client = ClientFrom(IPAddress.Loopback);

        await PatchAsync(client, proxy.Url(upload), content);

        using var head = new HttpRequestMessage(HttpMethod.Head, proxy.Url(upload));
        head.Headers.Add("Tus-Resumable", "1.0.0");
        using var state = await client.SendAsync(head);
        await AssertStatusAsync(state, HttpStatusCode.OK);
        Assert.Equal("/files/" + name, state.Content.Headers.ContentLocation?.OriginalString);
        Assert.Equal(content, await client.GetByteArrayAsync(proxy.Url("/files/" + name)));
    }

    /// <summary>
    /// serve allows one upload in flight per client (the fixture's limit). Client A holds one through nginx; A's second
    /// PUT is 429 even with a forged X-Forwarded-For (nginx sets the header to the address it saw), while client B's
    /// passes: serve counts the clients nginx names, not nginx.
    /// </summary>
    [Fact]
    public async Task Put_TwoClientsThroughNginx_EachHasItsOwnSlot()
    {
        var root = NewRoot();
        await using var held = await RawHttpConnection.OpenAsync(proxy.Address, s_clientA);
        await held.SendAsync(RawHttpConnection.Head("PUT", proxy.Address, $"/files/{root}/held.bin", "Content-Length: " + Invariant(2 * Payloads.MiB)));
        await held.SendAsync(Content(Payloads.MiB, seed: 42));
        Assert.True(await EventuallyAsync(() => proxy.Serve.FilesTempFiles().Any(temp => new FileInfo(temp).Length > 0)), "the held upload never reached serve");

        using var clientA = ClientFrom(s_clientA);
        using var second = new HttpRequestMessage(HttpMethod.Put, proxy.Url($"/files/{root}/second.bin")) { Content = new ByteArrayContent(Content(1000, seed: 43)) };
        second.Headers.Add("X-Forwarded-For", s_clientB.ToString());
        using var refused = await clientA.SendAsync(second);
        await ProblemAssert.IsProblemAsync(refused, HttpStatusCode.TooManyRequests);

        using var clientB = ClientFrom(s_clientB);
        using var other = await clientB.PutAsync(proxy.Url($"/files/{root}/other.bin"), new ByteArrayContent(Content(1000, seed: 44)));
        await AssertStatusAsync(other, HttpStatusCode.Created);
    }

    /// <summary>
    /// The shipped config's second mount, <c>location /freight/</c>: serve sees /files/… and /tus/…, and its answers
    /// name /freight/files/… and /freight/tus/… (X-Forwarded-Prefix), which lead back to it through nginx.
    /// </summary>
    [Fact]
    public async Task Urls_SubPathMount_CarryThePrefixAndLeadBack()
    {
        var root = NewRoot();
        var content = Content(10, seed: 45);
        using var client = ClientFrom(IPAddress.Loopback);

        using var stored = await client.PutAsync(proxy.Url($"/freight/files/{root}/pre/x.txt"), new ByteArrayContent(content));
        await AssertStatusAsync(stored, HttpStatusCode.Created);
        Assert.Equal($"/freight/files/{root}/pre/x.txt", stored.Headers.Location?.OriginalString);
        Assert.Equal(content, await client.GetByteArrayAsync(proxy.Url(stored.Headers.Location!.OriginalString)));

        using var create = new HttpRequestMessage(HttpMethod.Post, proxy.Url("/freight/tus/"));
        create.Headers.Add("Tus-Resumable", "1.0.0");
        create.Headers.Add("Upload-Length", "3");
        create.Headers.Add("Upload-Metadata", "filename " + Convert.ToBase64String(Encoding.UTF8.GetBytes($"{root}/done.bin")));
        using var created = await client.SendAsync(create);
        await AssertStatusAsync(created, HttpStatusCode.Created);
        var upload = created.Headers.Location!.OriginalString;
        Assert.StartsWith("/freight/tus/", upload, StringComparison.Ordinal);
        await PatchAsync(client, proxy.Url(upload), Content(3, seed: 46));
        using var head = new HttpRequestMessage(HttpMethod.Head, proxy.Url(upload));
        head.Headers.Add("Tus-Resumable", "1.0.0");
        using var state = await client.SendAsync(head);
        Assert.Equal($"/freight/files/{root}/done.bin", state.Content.Headers.ContentLocation?.OriginalString);

        using var folder = await client.GetAsync(proxy.Url($"/freight/files/{root}/pre"));
        await ProblemAssert.IsProblemAsync(folder, HttpStatusCode.NotFound);
        using var problem = JsonDocument.Parse(await folder.Content.ReadAsStringAsync());
        Assert.EndsWith($"GET /freight/files?prefix={root}/pre lists it.", problem.RootElement.GetProperty("detail").GetString(), StringComparison.Ordinal);
    }

    /// <summary>
    /// Under the sub-path mount a problem's detail names the paths the client used, /freight/… (PathBase and Path), not
    /// the ones nginx passed on: routing's 404 for the request's own path, and tus's refusals for the URLs of uploads and
    /// of its endpoint. An <c>instance</c>, were one ever set, would have to lead back the same way.
    /// </summary>
    [Fact]
    public async Task Problems_SubPathMount_DetailsNameThePathsWithThePrefix()
    {
        using var client = ClientFrom(IPAddress.Loopback);

        using var nowhere = await client.GetAsync(proxy.Url("/freight/nowhere/at/all"));
        await ProblemAssert.IsProblemAsync(nowhere, HttpStatusCode.NotFound);
        AssertDetail("GET /freight/nowhere/at/all: no route matches the path.", await nowhere.Content.ReadAsStringAsync());

        var part = Freight.Resumable.ResumableUploadId.New();
        using var final = await client.SendAsync(TusFinal(proxy.Url("/freight/tus/"), $"/freight/tus/{part}"));
        await ProblemAssert.IsProblemAsync(final, HttpStatusCode.BadRequest);
        AssertDetail($"/freight/tus/{part} is not a partial upload here.", await final.Content.ReadAsStringAsync());

        using var foreign = await client.SendAsync(TusFinal(proxy.Url("/freight/tus/"), $"/elsewhere/{part}"));
        await ProblemAssert.IsProblemAsync(foreign, HttpStatusCode.BadRequest);
        AssertDetail($"'/elsewhere/{part}' is not an upload of this server's tus endpoint (/freight/tus/).", await foreign.Content.ReadAsStringAsync());

        static HttpRequestMessage TusFinal(Uri endpoint, string partUrl)
        {
            var create = new HttpRequestMessage(HttpMethod.Post, endpoint);
            create.Headers.Add("Tus-Resumable", "1.0.0");
            create.Headers.Add("Upload-Concat", "final;" + partUrl);
            return create;
        }

        static void AssertDetail(string expected, string body)
        {
            using var problem = JsonDocument.Parse(body);
            Assert.Equal(expected, problem.RootElement.GetProperty("detail").GetString());
            if (problem.RootElement.TryGetProperty("instance", out var instance))
            {
                Assert.StartsWith("/freight/", instance.GetString(), StringComparison.Ordinal);
            }
        }
    }

    /// <summary>At the root mount the config drops a client's X-Forwarded-Prefix: serve trusts nginx, so nginx must not relay it.</summary>
    [Fact]
    public async Task Put_ClientsOwnForwardedPrefixAtTheRoot_IsDropped()
    {
        var key = $"{NewRoot()}/y.txt";
        using var client = ClientFrom(IPAddress.Loopback);
        using var put = new HttpRequestMessage(HttpMethod.Put, proxy.Url("/files/" + key)) { Content = new ByteArrayContent(Content(10, seed: 47)) };
        put.Headers.Add("X-Forwarded-Prefix", "/elsewhere");

        using var stored = await client.SendAsync(put);

        await AssertStatusAsync(stored, HttpStatusCode.Created);
        Assert.Equal("/files/" + key, stored.Headers.Location?.OriginalString);
    }

    private static async Task PatchAsync(HttpClient client, Uri upload, byte[] content)
    {
        using var patch = new HttpRequestMessage(HttpMethod.Patch, upload) { Content = new ByteArrayContent(content) };
        patch.Headers.Add("Tus-Resumable", "1.0.0");
        patch.Headers.Add("Upload-Offset", "0");
        patch.Content.Headers.ContentType = new MediaTypeHeaderValue("application/offset+octet-stream");
        using var patched = await client.SendAsync(patch);
        await AssertStatusAsync(patched, HttpStatusCode.NoContent);
        Assert.Equal(Invariant(content.Length), patched.Headers.GetValues("Upload-Offset").Single());
    }

    private static HttpClient ClientFrom(IPAddress from) => ClientAddress.ClientFrom(from, TimeSpan.FromMinutes(1));

    /// <summary>
    /// serve (its files store on disk, one upload in flight per client, trusting 127.0.0.1: nginx) and an nginx in
    /// front of it running deploy/nginx/freight.conf, in a work directory of its own.
    /// </summary>
    public sealed class ProxiedServe : IAsyncLifetime
    {
        private readonly string _work = Path.Combine(Path.GetTempPath(), "freight-server-tests", "nginx-" + Guid.NewGuid().ToString("N"));
        private NginxServer? _nginx;

        public ServeBehindProxy Serve { get; } = new();

        /// <summary>nginx's <c>http://127.0.0.1:PORT/</c>.</summary>
        public Uri Address => _nginx?.BaseAddress ?? throw new InvalidOperationException("nginx is not started.");

        public Uri Url(string pathAndQuery) => new(Address, pathAndQuery);

        public async Task InitializeAsync()
        {
            await Serve.InitializeAsync();
            _nginx = await ShippedNginxProxy.StartAsync(_work, Serve.HttpAddress);
            Assert.True(_nginx is not null, ShippedNginxProxy.Missing);
        }

        public async Task DisposeAsync()
        {
            if (_nginx is not null)
            {
                await _nginx.DisposeAsync();
            }

            await Serve.DisposeAsync();
            if (Directory.Exists(_work))
            {
                Directory.Delete(_work, recursive: true);
            }
        }
    }

    public sealed class ServeBehindProxy() : FilesServer(
        "--Freight:TrustedProxies:0", "127.0.0.1", "--Freight:Files:MaxConcurrentUploadsPerClient", "1", "--Freight:Lab", "false");
}
