using System.Net;
using System.Net.Http.Headers;
using System.Net.Security;
using System.Net.Sockets;
using System.Runtime.Versioning;
using System.Security.Cryptography;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Transport;

/// <summary>
/// The files API over the server's TLS listener (<c>UseFreightHttps</c>) on HTTP/1.1 and HTTP/2: bytes, hashes and
/// ranges, the records it writes, the cipher it picks, and clients that abort or reset mid-body; on both send paths
/// (<c>Tls:SendRecordsOnSocket</c>: records sent on the socket by the encrypting thread, or Kestrel's pipe and send loop).
/// </summary>
public abstract class HttpsTransferTests(FilesServer server)
{
    private const int Size = 3 * 1024 * 1024 + 12345;

    public static TheoryData<string> Versions() => new() { "1.1", "2.0" };

    [Theory]
    [MemberData(nameof(Versions))]
    public async Task Https_PutThenGet_ReturnsTheExactBytes(string version)
    {
        var key = $"{FilesApi.NewRoot()}/tls.bin";
        var content = FilesApi.Content(Size, seed: 20);

        using var put = Request(HttpMethod.Put, version, "/files/" + key);
        put.Content = new ByteArrayContent(content);
        put.Content.Headers.ContentType = new MediaTypeHeaderValue("application/octet-stream");
        using var created = await server.Client.SendAsync(put);
        using var get = Request(HttpMethod.Get, version, "/files/" + key);
        using var response = await server.Client.SendAsync(get);
        var body = await response.Content.ReadAsByteArrayAsync();

        Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        Assert.Equal(Version.Parse(version), created.Version);
        Assert.Equal(FilesApi.ETag(content), created.Headers.ETag?.ToString());
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(Version.Parse(version), response.Version);
        Assert.Equal(SHA256.HashData(content), SHA256.HashData(body));
        Assert.Equal(content.Length, body.Length);
    }

    [Theory]
    [MemberData(nameof(Versions))]
    public async Task Https_RangeRequest_ReturnsThoseBytes(string version)
    {
        var key = $"{FilesApi.NewRoot()}/tls-range.bin";
        var content = FilesApi.Content(Size, seed: 21);
        await FilesApi.CreateAsync(server, key, content);

        using var get = Request(HttpMethod.Get, version, "/files/" + key);
        get.Headers.Range = new RangeHeaderValue(1_000_000, 2_500_000);
        using var response = await server.Client.SendAsync(get);

        Assert.Equal(HttpStatusCode.PartialContent, response.StatusCode);
        Assert.Equal($"bytes 1000000-2500000/{Size}", response.Content.Headers.ContentRange?.ToString());
        Assert.Equal(content.AsSpan(1_000_000, 1_500_001).ToArray(), await response.Content.ReadAsByteArrayAsync());
    }

    [Theory]
    [MemberData(nameof(Versions))]
    public async Task Https_LargeDownload_IsSentInFull16KiBRecords(string version)
    {
        var key = $"{FilesApi.NewRoot()}/records.bin";
        var content = FilesApi.Content(Size, seed: 22);
        await FilesApi.CreateAsync(server, key, content);
        await using var relay = new TlsRelay(server.HttpsAddress);
        using var client = ServerHarness.CreatePinnedClient(server.CertificateFingerprint);

        using var get = new HttpRequestMessage(HttpMethod.Get, new Uri(relay.Address, "/files/" + key)) { Version = Version.Parse(version), VersionPolicy = HttpVersionPolicy.RequestVersionExact };
        using var response = await client.SendAsync(get);
        Assert.Equal(content, await response.Content.ReadAsByteArrayAsync());

        // TLS 1.3: a full record's fragment is 16 KiB of data + 1 content-type byte + a 16-byte AEAD tag.
        var data = relay.ServerRecords.Where(record => record.Type == TlsRelay.ApplicationData).ToList();
        // 4 KiB records (one per pipe segment, aspnetcore#30545) would carry none of it in full records.
        var full = data.Where(record => record.Length >= 16 * 1024).ToList();
        var carried = full.Sum(record => record.Length - 17L);
        Assert.All(data, record => Assert.InRange(record.Length, 1, 16 * 1024 + 256)); // RFC 8446 §5.2's limit
        // Not all of it: HTTP/2 on a loaded machine flushes some frames before a record fills (CI read 94.9 %, then
        // 77.8 % on 2026-11-29, with ~8 KiB records between full ones); 4 KiB records would carry none, so half tells the
        // two apart.
        Assert.True(carried >= Size * 50L / 100, $"records of 16 KiB or more carry {carried} of {Size} bytes; lengths: {string.Join(',', data.Select(record => record.Length).Distinct())}");
    }

    [Fact]
    [UnsupportedOSPlatform("windows")] // No CipherSuitesPolicy there, on either side.
    public async Task Https_ClientPreferringAes256_GetsAes128Gcm()
    {
        using var tcp = new TcpClient();
        await tcp.ConnectAsync(server.HttpsAddress.Host, server.HttpsAddress.Port);
        await using var tls = new SslStream(tcp.GetStream());

        await tls.AuthenticateAsClientAsync(new SslClientAuthenticationOptions
        {
            TargetHost = "localhost",
            CipherSuitesPolicy = new CipherSuitesPolicy([TlsCipherSuite.TLS_AES_256_GCM_SHA384, TlsCipherSuite.TLS_AES_128_GCM_SHA256]),
            RemoteCertificateValidationCallback = (_, _, _, _) => true,
        });

        Assert.Equal(TlsCipherSuite.TLS_AES_128_GCM_SHA256, tls.NegotiatedCipherSuite);
        Assert.Equal(System.Security.Authentication.SslProtocols.Tls13, tls.SslProtocol);
    }

    [Fact]
    [UnsupportedOSPlatform("windows")]
    public async Task Https_ClientOfferingOnlyAes256_GetsAes256Gcm()
    {
        using var tcp = new TcpClient();
        await tcp.ConnectAsync(server.HttpsAddress.Host, server.HttpsAddress.Port);
        await using var tls = new SslStream(tcp.GetStream());

        await tls.AuthenticateAsClientAsync(new SslClientAuthenticationOptions
        {
            TargetHost = "localhost",
            CipherSuitesPolicy = new CipherSuitesPolicy([TlsCipherSuite.TLS_AES_256_GCM_SHA384]),
            RemoteCertificateValidationCallback = (_, _, _, _) => true,
        });

        Assert.Equal(TlsCipherSuite.TLS_AES_256_GCM_SHA384, tls.NegotiatedCipherSuite);
    }

    [Theory]
    [MemberData(nameof(Versions))]
    public async Task Https_ClientAbortsMidDownload_ServerKeepsServing(string version)
    {
        var key = $"{FilesApi.NewRoot()}/abort.bin";
        var content = FilesApi.Content(Size, seed: 23);
        await FilesApi.CreateAsync(server, key, content);
        using var client = ServerHarness.CreatePinnedClient(server.CertificateFingerprint);

        using (var get = Request(HttpMethod.Get, version, "/files/" + key))
        using (var response = await client.SendAsync(get, HttpCompletionOption.ResponseHeadersRead))
        await using (var body = await response.Content.ReadAsStreamAsync())
        {
            var first = new byte[64 * 1024];
            await body.ReadExactlyAsync(first);
            Assert.Equal(content.AsSpan(0, first.Length).ToArray(), first);
        }

        // The connection goes with the client; the server answers the next one in full, both protocols.
        client.Dispose();
        using var again = Request(HttpMethod.Get, version, "/files/" + key);
        using var whole = await server.Client.SendAsync(again);
        Assert.Equal(content, await whole.Content.ReadAsByteArrayAsync());
        await server.AssertServingAsync();
    }

    [Fact]
    public async Task Https_ClientResetsMidDownload_FileReleasedNoErrorLoggedAndServerServes()
    {
        // 64 MiB: far more than the socket buffers hold, so the server is mid-body, sending records, when the reset lands.
        const int Large = 64 * 1024 * 1024;
        var key = $"{FilesApi.NewRoot()}/reset.bin";
        await FilesApi.CreateAsync(server, key, FilesApi.Content(Large, seed: 24));
        var path = server.DiskPath(key);
        var mark = server.Logs.Count;
        await using (var connection = await RawHttpConnection.OpenTlsAsync(server.HttpsAddress, server.CertificateFingerprint))
        {
            await connection.SendAsync(RawHttpConnection.Head("GET", server.HttpsAddress, "/files/" + key));
            Assert.True(await connection.ReadSomeAsync(256 * 1024) > 0);
            connection.Reset();
        }

        // The response has ended once the file is closed. A failed send that reached Kestrel's HTTP layer as an
        // exception would have been logged as an error by then ("Unexpected exception" in its flush).
        Assert.True(await FilesApi.EventuallyAsync(() => !FilesApi.OpenInThisProcess(path)), "the server still holds the file open");
        Assert.Empty(server.Logs.Since(mark, Microsoft.Extensions.Logging.LogLevel.Error));
        await server.AssertServingAsync();
    }

    private HttpRequestMessage Request(HttpMethod method, string version, string pathAndQuery) => new(method, new Uri(server.HttpsAddress, pathAndQuery))
    {
        Version = Version.Parse(version),
        VersionPolicy = HttpVersionPolicy.RequestVersionExact,
    };
}

/// <summary>The default (<c>Tls:SendRecordsOnSocket true</c>): TLS records sent on the socket by the thread that encrypted them.</summary>
public sealed class HttpsTransferSocketSendTests(FileSystemFilesServer server) : HttpsTransferTests(server), IClassFixture<FileSystemFilesServer>;

/// <summary><c>Tls:SendRecordsOnSocket false</c>: Kestrel's path, records through its transport pipe and send loop.</summary>
public sealed class HttpsTransferKestrelSendTests(KestrelTlsSendFilesServer server) : HttpsTransferTests(server), IClassFixture<KestrelTlsSendFilesServer>;
