using System.Diagnostics;
using System.Net;
using System.Security.Cryptography;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// Over TLS a download takes the copying path, on HTTP/1.1 and on HTTP/2: a real HttpClient that asks for a 64 MiB file
/// and stops reading after the head is cut there too (Kestrel's own timer let such a client hold its connection and file
/// for as long as it liked), the cut is logged once, and the server keeps serving; a slow client that keeps reading is not cut.
/// </summary>
public abstract class SlowClientTlsDownloadTests(FilesServer server)
{
    private const int Size = 64 * Payloads.MiB;

    // Kestrel's 5 s grace and one check of the client, with room to spare; the bytes buffered by then are read after.
    private static readonly TimeSpan s_stoppedPhase = TimeSpan.FromSeconds(15);

    [Theory]
    [InlineData("1.1")]
    [InlineData("2.0")]
    public async Task Get_ClientThatStopsReading_IsCutAndLoggedOnce(string version)
    {
        var key = $"{NewRoot()}/stalled-reader.bin";
        await CreateAsync(server, key, Content(Size, seed: 149));
        using var client = ServerHarness.CreatePinnedClient(server.CertificateFingerprint);
        using var request = Get(key, version);
        using var cuts = new PortMeter("freight.download.cut", server.HttpsAddress);
        var mark = server.Logs.Count;

        using var response = await client.SendAsync(request, HttpCompletionOption.ResponseHeadersRead);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(Version.Parse(version), response.Version);
        await using var body = await response.Content.ReadAsStreamAsync();
        await Task.Delay(s_stoppedPhase);

        var (received, cut) = await ReadToEndAsync(body);

        Assert.True(cut, $"a client that stopped reading for {s_stoppedPhase.TotalSeconds} s then got all {received} bytes");
        Assert.True(received < Size);
        SlowClientDownloadTests.AssertCutOnce(server, mark, cuts);
        await SlowClientDownloadTests.AssertStillServesAsync(server);
    }

    /// <summary>A client that reads at 64 KiB/s, hundreds of times the minimum rate, is not cut, and gets every byte.</summary>
    [Theory]
    [InlineData("1.1")]
    [InlineData("2.0")]
    public async Task Get_ClientReadingSlowlyButSteadily_IsNotCutAndGetsEveryByte(string version)
    {
        const int bytesPerSecond = 64 * 1024;
        var key = $"{NewRoot()}/steady-reader.bin";
        var content = Content(Size, seed: 151);
        await CreateAsync(server, key, content);
        using var client = ServerHarness.CreatePinnedClient(server.CertificateFingerprint);
        using var response = await client.SendAsync(Get(key, version), HttpCompletionOption.ResponseHeadersRead);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        await using var body = await response.Content.ReadAsStreamAsync();
        using var hash = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        var buffer = new byte[16 * 1024];
        var clock = Stopwatch.StartNew();
        long received = 0;
        while (clock.Elapsed < s_stoppedPhase)
        {
            var read = await body.ReadAsync(buffer.AsMemory(0, (int)Math.Min(buffer.Length, Math.Max(1, (long)(clock.Elapsed.TotalSeconds * bytesPerSecond) - received))));
            Assert.True(read > 0, $"the body ended after {received} bytes");
            hash.AppendData(buffer, 0, read);
            received += read;
            if (received >= clock.Elapsed.TotalSeconds * bytesPerSecond)
            {
                await Task.Delay(20);
            }
        }

        int rest;
        while ((rest = await body.ReadAsync(buffer)) > 0)
        {
            hash.AppendData(buffer, 0, rest);
        }

        Assert.Equal(SHA256.HashData(content), hash.GetHashAndReset());
    }

    private HttpRequestMessage Get(string key, string version) => new(HttpMethod.Get, new Uri(server.HttpsAddress, "/files/" + key))
    {
        Version = Version.Parse(version),
        VersionPolicy = HttpVersionPolicy.RequestVersionExact,
    };

    /// <summary>Reads what the client had buffered and whatever follows; the bytes read and whether the body ended in an error.</summary>
    private static async Task<(long Received, bool Cut)> ReadToEndAsync(Stream body)
    {
        var buffer = new byte[256 * 1024];
        long received = 0;
        try
        {
            int read;
            while ((read = await body.ReadAsync(buffer)) > 0)
            {
                received += read;
            }

            return (received, false);
        }
        catch (Exception error) when (error is IOException or HttpRequestException)
        {
            return (received, true);
        }
    }
}

/// <summary>Freight's TLS records sent on the socket (the default).</summary>
public sealed class SlowClientTlsDownloadOnSocketTests(FileSystemFilesServer server) : SlowClientTlsDownloadTests(server), IClassFixture<FileSystemFilesServer>;

/// <summary>TLS records through Kestrel's transport pipe and send loop.</summary>
public sealed class SlowClientTlsDownloadKestrelSendTests(KestrelTlsSendFilesServer server) : SlowClientTlsDownloadTests(server), IClassFixture<KestrelTlsSendFilesServer>;
