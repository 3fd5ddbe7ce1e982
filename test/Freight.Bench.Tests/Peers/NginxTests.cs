using System.Diagnostics;
using System.Net;
using System.Net.Http.Headers;
using System.Net.Sockets;
using Freight.Bench.Load.Engine;
using Freight.Bench.Peers;

namespace Freight.Bench.Tests.Peers;

/// <summary>
/// The real nginx peer: it serves a directory's exact bytes with validators, takes WebDAV PUTs, keeps its
/// state in our work directory, and is gone, port and process, once disposed. These tests fail, never skip,
/// when nginx is missing: <c>./test.sh</c> installs it (scripts/install-peers.sh) on a fresh machine.
/// </summary>
public sealed class NginxTests
{
    private const string Missing = "nginx is not installed: run scripts/install-peers.sh as root (./test.sh does).";

    private const int FileBytes = 1024 * 1024 + 3;

    [Fact]
    public async Task Get_File_ExactBytesWithLengthETagAndLastModified()
    {
        using var site = new PeerDirectory();
        var bytes = site.WriteFile("file.bin", FileBytes);
        await using var nginx = await StartAsync(site);
        using var client = new HttpClient();

        using var response = await client.GetAsync(new Uri(nginx.BaseAddress, "file.bin"));
        var body = await response.Content.ReadAsByteArrayAsync();

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(bytes, body);
        Assert.Equal(FileBytes, response.Content.Headers.ContentLength);
        Assert.Equal("application/octet-stream", response.Content.Headers.ContentType?.MediaType);
        Assert.NotNull(response.Headers.ETag);
        var modified = File.GetLastWriteTimeUtc(Path.Combine(site.Root, "file.bin"));
        Assert.Equal(new DateTimeOffset(modified.AddTicks(-(modified.Ticks % TimeSpan.TicksPerSecond))), response.Content.Headers.LastModified);
    }

    [Fact]
    public async Task Head_File_HeadersWithoutBody()
    {
        using var site = new PeerDirectory();
        site.WriteFile("file.bin", FileBytes);
        await using var nginx = await StartAsync(site);
        using var client = new HttpClient();

        using var response = await client.SendAsync(new HttpRequestMessage(HttpMethod.Head, new Uri(nginx.BaseAddress, "file.bin")));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(FileBytes, response.Content.Headers.ContentLength);
        Assert.NotNull(response.Headers.ETag);
        Assert.Empty(await response.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task Get_IfNoneMatchItsETag_NotModified()
    {
        using var site = new PeerDirectory();
        site.WriteFile("file.bin", 4096);
        await using var nginx = await StartAsync(site);
        using var client = new HttpClient();
        var url = new Uri(nginx.BaseAddress, "file.bin");
        using var first = await client.GetAsync(url);

        using var request = new HttpRequestMessage(HttpMethod.Get, url);
        request.Headers.IfNoneMatch.Add(first.Headers.ETag!);
        using var response = await client.SendAsync(request);

        Assert.Equal(HttpStatusCode.NotModified, response.StatusCode);
    }

    [Fact]
    public async Task StartAsync_Site_OneProcessWithAllItsStateInTheWorkDirectory()
    {
        using var site = new PeerDirectory();
        await using var nginx = await StartAsync(site);

        var config = await File.ReadAllTextAsync(nginx.ConfigPath);
        using var process = Process.GetProcessById(nginx.ProcessId);

        Assert.Equal("nginx", process.ProcessName);
        Assert.Equal(nginx.ProcessId.ToString(System.Globalization.CultureInfo.InvariantCulture), (await File.ReadAllTextAsync(Path.Combine(site.Work, "nginx.pid"))).Trim());
        Assert.StartsWith(site.Work, nginx.ConfigPath, StringComparison.Ordinal);
        Assert.StartsWith(site.Work, nginx.ErrorLogPath, StringComparison.Ordinal);
        Assert.Contains("master_process off;", config, StringComparison.Ordinal);
        Assert.Contains($"listen 127.0.0.1:{nginx.BaseAddress.Port};", config, StringComparison.Ordinal);
        foreach (var temp in (string[])["client_body", "proxy", "fastcgi", "uwsgi", "scgi"])
        {
            Assert.Contains($"{temp}_temp_path \"{site.Work}/", config, StringComparison.Ordinal);
        }

        Assert.DoesNotContain("/var/", config, StringComparison.Ordinal);
        Assert.Matches(@"^\d+\.\d+\.\d+$", nginx.Version);
        Assert.Null(nginx.DavAddress);
    }

    [Fact]
    public async Task DisposeAsync_Running_StopsOnSigtermAndFreesThePort()
    {
        using var site = new PeerDirectory();
        var nginx = await StartAsync(site);
        var endPoint = new IPEndPoint(IPAddress.Loopback, nginx.BaseAddress.Port);
        using var process = Process.GetProcessById(nginx.ProcessId);

        await nginx.DisposeAsync();
        await nginx.DisposeAsync();

        // Exit code 0: the watchdog's SIGTERM stopped it, the path a dying bench takes too; a kill gives 137.
        Assert.Equal(0, nginx.ExitCode);
        Assert.True(process.HasExited);
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        var refused = await Assert.ThrowsAsync<SocketException>(async () => await socket.ConnectAsync(endPoint));
        Assert.Equal(SocketError.ConnectionRefused, refused.SocketErrorCode);
    }

    [Fact]
    public async Task DisposeAsync_NginxAlreadyKilled_Completes()
    {
        using var site = new PeerDirectory();
        var nginx = await StartAsync(site);
        using (var process = Process.GetProcessById(nginx.ProcessId))
        {
            process.Kill();
            await process.WaitForExitAsync();
        }

        await nginx.DisposeAsync();

        Assert.True(nginx.HasExited);
        Assert.Equal(137, nginx.ExitCode);
    }

    [Fact]
    public async Task WebDavPut_NewThenExistingFile_WrittenIntoThePutDirectory()
    {
        using var site = new PeerDirectory();
        var put = Path.Combine(site.Path, "uploads");
        await using var nginx = await StartAsync(site, put);
        using var client = new HttpClient();
        var bytes = new byte[3 * 1024 * 1024];
        new Random(7).NextBytes(bytes);
        var url = new Uri(nginx.DavAddress!, "a/b/upload.bin");

        using var created = await client.PutAsync(url, new ByteArrayContent(bytes));
        using var replaced = await client.PutAsync(url, new ByteArrayContent(bytes));

        Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        Assert.Equal(HttpStatusCode.NoContent, replaced.StatusCode);
        Assert.Equal(put, nginx.PutDirectory);
        Assert.Equal(bytes, await File.ReadAllBytesAsync(Path.Combine(put, "a", "b", "upload.bin")));
        Assert.Empty(Directory.EnumerateFiles(Path.Combine(put, ".nginx-put-temp"), "*", SearchOption.AllDirectories));
    }

    [Fact]
    public async Task WebDavDelete_UploadedThenAbsentFile_RemovedThenNotFound()
    {
        using var site = new PeerDirectory();
        var put = Path.Combine(site.Path, "uploads");
        await using var nginx = await StartAsync(site, put);
        using var client = new HttpClient();
        var url = new Uri(nginx.DavAddress!, "put-4096.bin");
        using var created = await client.PutAsync(url, new ByteArrayContent(new byte[4096]));

        using var deleted = await client.DeleteAsync(url);
        using var again = await client.DeleteAsync(url);

        Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, again.StatusCode);
        Assert.False(File.Exists(Path.Combine(put, "put-4096.bin")));
    }

    [Theory]
    [InlineData(LoadTransport.RawHttp11)]
    [InlineData(LoadTransport.HttpClient)]
    public async Task LoadEngine_ExpectedFile_EveryResponseVerified(LoadTransport transport)
    {
        using var site = new PeerDirectory();
        var bytes = site.WriteFile("file.bin", 128 * 1024);
        await using var nginx = await StartAsync(site);

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = new Uri(nginx.BaseAddress, "file.bin"),
            Transport = transport,
            Connections = 8,
            MaxRequests = 400,
            ExpectedStatusCode = 200,
            ExpectedBody = bytes,
        });

        Assert.Equal(400, result.StatusCodes[200]);
        Assert.Equal(0, result.BadResponses);
        Assert.Equal(400L * bytes.Length, result.BodyBytes);
        Assert.NotNull(result.FirstResponseSeconds);
    }

    [Fact]
    public async Task LoadEngine_OtherFileExpected_EveryResponseBad()
    {
        using var site = new PeerDirectory();
        site.WriteFile("file.bin", 16 * 1024);
        var other = site.WriteFile("other.bin", 16 * 1024 + 1)[..(16 * 1024)];
        await using var nginx = await StartAsync(site);

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = new Uri(nginx.BaseAddress, "file.bin"),
            Connections = 4,
            MaxRequests = 100,
            ExpectedStatusCode = 200,
            ExpectedBody = other,
        });

        Assert.Equal(100, result.BadResponses);
        Assert.Equal(100, result.BodyMismatches);
    }

    [Fact]
    public async Task StartAsync_MissingRoot_Throws()
    {
        Assert.NotNull(Nginx.Find());
        using var site = new PeerDirectory();

        await Assert.ThrowsAsync<DirectoryNotFoundException>(() => Nginx.StartAsync(
            new NginxSiteOptions { RootDirectory = Path.Combine(site.Path, "nope"), WorkDirectory = site.Work }, CancellationToken.None));
    }

    private static async Task<NginxServer> StartAsync(PeerDirectory site, string? putDirectory = null)
    {
        var nginx = await Nginx.StartAsync(
            new NginxSiteOptions { RootDirectory = site.Root, WorkDirectory = site.Work, EnableWebDavPut = putDirectory is not null, PutDirectory = putDirectory },
            CancellationToken.None);
        Assert.True(nginx is not null, Missing);
        return nginx;
    }
}
