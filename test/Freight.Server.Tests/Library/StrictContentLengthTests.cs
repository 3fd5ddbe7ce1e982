using System.Net;
using System.Net.Sockets;
using System.Security.Cryptography.X509Certificates;
using Freight.AspNetCore.Errors;
using Freight.Server.Hosting;
using Freight.Server.Tests.Infrastructure;
using Freight.Transport;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Freight.Server.Tests.Library;

/// <summary>
/// <c>AddFreightStrictContentLength()</c> in an app of its own (the files API, a memory store) on a real Kestrel at
/// 127.0.0.1:0 with three endpoints: HTTP/1.1, HTTPS (HTTP/1.1 and HTTP/2 by ALPN) and h2c. An HTTP/1.x Content-Length
/// that is not digits only is refused on cleartext and TLS alike; everything else passes as before.
/// </summary>
public sealed class StrictContentLengthTests
{
    /// <summary>RFC 9110 §8.6, RFC 9112 §6.3: refused with a 400 problem, logged once, the connection closed, nothing stored.</summary>
    [Theory]
    [InlineData("+5", "hello")]
    [InlineData("+0005", "hello")]
    [InlineData("-0", "")]
    public async Task Put_SignedContentLength_Returns400ProblemAndClosesTheConnection(string contentLength, string body)
    {
        await using var app = await StrictApp.StartAsync();
        var mark = app.Logs.Count;
        await using var connection = await RawHttpConnection.OpenAsync(app.Http);

        await connection.SendAsync(RawHttpConnection.Head("PUT", app.Http, "/files/signed.bin", "Content-Length: " + contentLength));
        var sending = connection.SendIgnoringServerCloseAsync(System.Text.Encoding.ASCII.GetBytes(body));
        var response = await connection.ReadResponseAsync();
        var afterResponse = await connection.ReadUntilClosedAsync();
        await sending;

        ProblemAssert.IsProblem(response, HttpStatusCode.BadRequest);
        Assert.Contains($"'{contentLength}' is not", response.BodyText, StringComparison.Ordinal);
        Assert.Equal("close", response.Header("Connection"));
        Assert.Empty(afterResponse);
        var logged = Assert.Single(app.Logs.Since(mark));
        Assert.Equal(typeof(ProblemMiddleware).FullName, logged.Category);
        Assert.Contains("PUT /files/signed.bin rejected with 400", logged.Message, StringComparison.Ordinal);
        Assert.Equal(HttpStatusCode.NotFound, (await app.Client.GetAsync(new Uri(app.Http, "/files/signed.bin"))).StatusCode);
    }

    /// <summary>
    /// Digits-only lengths (leading zeros, whitespace around the value) are stored, and the connection stays open after
    /// each: a third request on it is still judged by its own head.
    /// </summary>
    [Fact]
    public async Task Put_DigitsOnlyContentLengths_AreStoredOnOneKeptAliveConnection()
    {
        await using var app = await StrictApp.StartAsync();
        await using var connection = await RawHttpConnection.OpenAsync(app.Http);

        var first = await PutAsync(connection, app.Http, "/files/a.bin", "5", "hello");
        var second = await PutAsync(connection, app.Http, "/files/b.bin", "\t0005 ", "world");
        var third = await PutAsync(connection, app.Http, "/files/c.bin", "+5", "later");

        Assert.Equal(201, first.StatusCode);
        Assert.Null(first.Header("Connection"));
        Assert.Equal(201, second.StatusCode);
        ProblemAssert.IsProblem(third, HttpStatusCode.BadRequest);
        Assert.Equal("hello", await app.Client.GetStringAsync(new Uri(app.Http, "/files/a.bin")));
        Assert.Equal("world", await app.Client.GetStringAsync(new Uri(app.Http, "/files/b.bin")));
    }

    /// <summary>A chunked body is framed by its chunks: one whose data reads like a head with a signed length is stored as sent.</summary>
    [Fact]
    public async Task Put_ChunkedBodyHoldingASignedLengthLine_IsStored()
    {
        await using var app = await StrictApp.StartAsync();
        var data = "PUT /x HTTP/1.1\r\nContent-Length: +5\r\n\r\n"u8.ToArray();
        await using var connection = await RawHttpConnection.OpenAsync(app.Http);

        await connection.SendAsync((byte[])[
            .. RawHttpConnection.Head("PUT", app.Http, "/files/chunked.bin", "Transfer-Encoding: chunked"),
            .. RawHttpConnection.Chunked(data, 7), .. RawHttpConnection.LastChunk]);
        var stored = await connection.ReadResponseAsync();
        var after = await PutAsync(connection, app.Http, "/files/after.bin", "2", "ok");

        Assert.Equal(201, stored.StatusCode);
        Assert.Equal(201, after.StatusCode);
        Assert.Equal(data, await app.Client.GetByteArrayAsync(new Uri(app.Http, "/files/chunked.bin")));
    }

    /// <summary>
    /// Over TLS the scan reads the decrypted request heads, though Kestrel's endpoint defaults put it before the
    /// endpoint's UseHttps: a signed length is refused, a good one stored, on kept-alive TLS connections. With Kestrel's
    /// UseHttps, and with Freight's (serve's), whose record sender sets the transport before the TLS middleware does.
    /// </summary>
    [Theory]
    [InlineData("UseHttps")]
    [InlineData("UseFreightHttps")]
    public async Task Put_OverTls_SignedLengthIsRefusedAndDigitsAreStored(string https)
    {
        await using var app = await StrictApp.StartAsync(freightHttps: https == "UseFreightHttps");
        await using var good = await RawHttpConnection.OpenTlsAsync(app.Https, app.Fingerprint);
        await using var signed = await RawHttpConnection.OpenTlsAsync(app.Https, app.Fingerprint);

        var first = await PutAsync(good, app.Https, "/files/tls-a.bin", "5", "hello");
        var second = await PutAsync(good, app.Https, "/files/tls-b.bin", "5", "again");
        var refused = await PutAsync(signed, app.Https, "/files/tls-c.bin", "+5", "hello");

        Assert.Equal(201, first.StatusCode);
        Assert.Equal(201, second.StatusCode);
        ProblemAssert.IsProblem(refused, HttpStatusCode.BadRequest);
        Assert.Equal("close", refused.Header("Connection"));
        Assert.Equal("again", await app.Client.GetStringAsync(new Uri(app.Https, "/files/tls-b.bin")));
        Assert.Equal(HttpStatusCode.NotFound, (await app.Client.GetAsync(new Uri(app.Https, "/files/tls-c.bin"))).StatusCode);
    }

    /// <summary>HTTP/2, by ALPN on TLS and as h2c, is left alone: uploads and downloads work as without the call.</summary>
    [Theory]
    [InlineData("https")]
    [InlineData("h2c")]
    public async Task PutAndGet_OverHttp2_AreUnaffected(string endpoint)
    {
        await using var app = await StrictApp.StartAsync();
        var address = endpoint == "https" ? app.Https : app.H2c;

        using var put = new HttpRequestMessage(HttpMethod.Put, new Uri(address, "/files/h2.bin"))
        {
            Version = HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
            Content = new ByteArrayContent("hello"u8.ToArray()),
        };
        using var stored = await app.Client.SendAsync(put);
        using var get = new HttpRequestMessage(HttpMethod.Get, new Uri(address, "/files/h2.bin")) { Version = HttpVersion.Version20, VersionPolicy = HttpVersionPolicy.RequestVersionExact };
        using var read = await app.Client.SendAsync(get);

        Assert.Equal(HttpStatusCode.Created, stored.StatusCode);
        Assert.Equal(HttpVersion.Version20, stored.Version);
        Assert.Equal("hello", await read.Content.ReadAsStringAsync());
    }

    /// <summary>
    /// Kestrel keeps one endpoint-defaults action: an app's own replaces the one that scans. Requests still work, their
    /// lengths unchecked, and a warning says so once, not per request.
    /// </summary>
    [Fact]
    public async Task Put_AppSetsItsOwnEndpointDefaults_WarnsOnceThatLengthsAreUnchecked()
    {
        await using var app = await StrictApp.StartAsync(kestrel => kestrel.ConfigureEndpointDefaults(listen => listen.Protocols = HttpProtocols.Http1AndHttp2));
        var mark = app.Logs.Count;

        await using var connection = await RawHttpConnection.OpenAsync(app.Http);
        var first = await PutAsync(connection, app.Http, "/files/unchecked.bin", "+5", "hello");
        var second = await PutAsync(connection, app.Http, "/files/unchecked-too.bin", "5", "hello");

        Assert.Equal(201, first.StatusCode);
        Assert.Equal(201, second.StatusCode);
        var warning = Assert.Single(app.Logs.Since(mark, LogLevel.Warning));
        Assert.Contains("Content-Length is not checked", warning.Message, StringComparison.Ordinal);
    }

    /// <summary>What the call is for: without it, Kestrel reads <c>+5</c> as 5 and the app stores the body.</summary>
    [Fact]
    public async Task Put_SignedContentLengthWithoutTheCall_IsStoredAsItsNumber()
    {
        await using var app = await StrictApp.StartAsync(strict: false);
        await using var connection = await RawHttpConnection.OpenAsync(app.Http);

        var response = await PutAsync(connection, app.Http, "/files/signed.bin", "+5", "hello");

        Assert.Equal(201, response.StatusCode);
        Assert.Equal("hello", await app.Client.GetStringAsync(new Uri(app.Http, "/files/signed.bin")));
    }

    /// <summary>
    /// What Kestrel does with a signed length on HTTP/2 (HttpClient cannot send one: it writes the number it parsed):
    /// its HTTP/2 headers take a sign too, but the DATA frames frame the body, and a length that disagrees with them
    /// resets the stream (RST_STREAM PROTOCOL_ERROR, RFC 9113 §8.1.1). Nothing for a front proxy to frame otherwise on
    /// this hop, so the check leaves HTTP/2 alone.
    /// </summary>
    [Theory]
    [InlineData("+5", "stored")]
    [InlineData("+3", "reset")]
    public async Task Put_OverH2cWithASignedLength_IsFramedByItsDataFrames(string contentLength, string outcome)
    {
        await using var app = await StrictApp.StartAsync();
        using var socket = new Socket(SocketType.Stream, ProtocolType.Tcp);
        await socket.ConnectAsync(app.H2c.Host, app.H2c.Port);
        await using var stream = new NetworkStream(socket);

        // HPACK literals without indexing (RFC 7541 §6.2.2), names from the static table: :method 2, :path 4,
        // :authority 1, content-length 28 (past the 4-bit prefix: 15, then 13); ":scheme: http" is entry 6.
        byte[] block = [
            0x02, .. Literal("PUT"), 0x86, 0x04, .. Literal("/files/h2-signed.bin"), 0x01, .. Literal(app.H2c.Authority),
            0x0F, 28 - 15, .. Literal(contentLength)];
        await stream.WriteAsync((byte[])[
            .. "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"u8, .. Frame(type: 4, flags: 0, stream: 0, []),
            .. Frame(type: 1, flags: 4, stream: 1, block), .. Frame(type: 0, flags: 1, stream: 1, "hello"u8)]);
        var (type, payload) = await ReadUntilStreamEndsAsync(stream);

        if (outcome == "stored")
        {
            Assert.Equal(0, type);
            Assert.Equal("hello", await app.Client.GetStringAsync(new Uri(app.Http, "/files/h2-signed.bin")));
        }
        else
        {
            Assert.Equal(3, type);
            Assert.Equal([0, 0, 0, 1], payload);
            Assert.Equal(HttpStatusCode.NotFound, (await app.Client.GetAsync(new Uri(app.Http, "/files/h2-signed.bin"))).StatusCode);
        }
    }

    /// <summary>
    /// A PUT of <paramref name="body"/> (ASCII) to <paramref name="path"/> on <paramref name="connection"/>, its head saying
    /// <c>Content-Length: </c><paramref name="contentLength"/> exactly as written; the response.
    /// </summary>
    private static async Task<RawHttpResponse> PutAsync(RawHttpConnection connection, Uri address, string path, string contentLength, string body)
    {
        await connection.SendAsync((byte[])[.. RawHttpConnection.Head("PUT", address, path, "Content-Length: " + contentLength), .. System.Text.Encoding.ASCII.GetBytes(body)]);
        return await connection.ReadResponseAsync();
    }

    private static byte[] Literal(string value) => [(byte)value.Length, .. System.Text.Encoding.ASCII.GetBytes(value)];

    private static byte[] Frame(byte type, byte flags, int stream, ReadOnlySpan<byte> payload) =>
        [(byte)(payload.Length >> 16), (byte)(payload.Length >> 8), (byte)payload.Length, type, flags,
            (byte)(stream >> 24), (byte)(stream >> 16), (byte)(stream >> 8), (byte)stream, .. payload];

    /// <summary>Reads the server's frames until stream 1 ends: its last DATA frame (type 0), or its RST_STREAM (type 3).</summary>
    private static async Task<(byte Type, byte[] Payload)> ReadUntilStreamEndsAsync(NetworkStream stream)
    {
        // Guards against a hang if the server never answers; no test asserts on time.
        using var limit = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        var head = new byte[9];
        while (true)
        {
            await stream.ReadExactlyAsync(head, limit.Token);
            var payload = new byte[(head[0] << 16) | (head[1] << 8) | head[2]];
            await stream.ReadExactlyAsync(payload, limit.Token);
            if (head[8] == 1 && (head[3] == 3 || (head[3] == 0 && (head[4] & 1) == 1)))
            {
                return (head[3], payload);
            }
        }
    }

    /// <summary>An app on Kestrel, as a user writes it, with the strict Content-Length check.</summary>
    private sealed class StrictApp : IAsyncDisposable
    {
        private readonly WebApplication _app;
        private readonly X509Certificate2 _certificate;

        private StrictApp(WebApplication app, X509Certificate2 certificate, CapturedLogs logs)
        {
            _app = app;
            _certificate = certificate;
            Logs = logs;
            Fingerprint = SelfSignedCertificate.Fingerprint(certificate);
            Client = ServerHarness.CreatePinnedClient(Fingerprint);
            var addresses = app.Services.GetRequiredService<IServer>().Features.GetRequiredFeature<IServerAddressesFeature>().Addresses.Select(address => new Uri(address)).ToList();
            // In the order the endpoints were declared: HTTP/1.1, HTTPS, h2c.
            Http = addresses[0];
            Https = addresses[1];
            H2c = addresses[2];
        }

        public Uri Http { get; }

        public Uri Https { get; }

        public Uri H2c { get; }

        public string Fingerprint { get; }

        public HttpClient Client { get; }

        public CapturedLogs Logs { get; }

        public static async Task<StrictApp> StartAsync(Action<KestrelServerOptions>? configure = null, bool strict = true, bool freightHttps = false)
        {
            var certificate = SelfSignedCertificate.Create();
            var logs = new CapturedLogs();
            var builder = WebApplication.CreateBuilder();
            builder.Logging.ClearProviders().AddProvider(logs);
            builder.WebHost.ConfigureKestrel(kestrel =>
            {
                configure?.Invoke(kestrel);
                kestrel.Listen(IPAddress.Loopback, 0);
                kestrel.Listen(IPAddress.Loopback, 0, listen =>
                {
                    listen.Protocols = HttpProtocols.Http1AndHttp2;
                    if (freightHttps)
                    {
                        listen.UseFreightHttps(certificate);
                    }
                    else
                    {
                        listen.UseHttps(certificate);
                    }
                });
                kestrel.Listen(IPAddress.Loopback, 0, listen => listen.Protocols = HttpProtocols.Http2);
            });
            builder.Services.AddFreightFiles().AddFreightMemoryStore();
            if (strict)
            {
                builder.Services.AddFreightStrictContentLength();
            }

            var app = builder.Build();
            app.MapFreightFiles("/files");
            await app.StartAsync();
            return new StrictApp(app, certificate, logs);
        }

        public async ValueTask DisposeAsync()
        {
            Client.Dispose();
            await _app.StopAsync();
            await _app.DisposeAsync();
            _certificate.Dispose();
        }
    }
}
