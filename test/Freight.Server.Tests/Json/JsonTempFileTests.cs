using System.Net;
using Freight.Lab.Json;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Json;

/// <summary>
/// What study 2 was about, observed in ASPNETCORE_TEMP of a real <c>freight serve</c> (a child process: ASP.NET Core
/// reads the variable once per process): the buffered Newtonsoft formatter spools the body through one temp file and
/// deletes it; the other variants never create one; a client that goes away mid-response leaves no file and no error.
/// </summary>
public sealed class JsonTempFileTests
{
    /// <summary>MvcNewtonsoftJsonOptions.OutputFormatterMemoryBufferThreshold's default: at most this much stays in memory.</summary>
    private const int MemoryThreshold = 30 * 1024;

    // Bounded waits for the server to notice and clean up, not timing assertions.
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task NewtonsoftBuffered_DefaultPayload_SpoolsTheBodyThroughOneTempFileThenDeletesIt()
    {
        await using var server = await ChildServer.StartAsync();
        using var client = new HttpClient();

        using var response = await client.GetAsync(new Uri(server.Address, "/lab/json/newtonsoft-buffered"), HttpCompletionOption.ResponseHeadersRead);

        // Headers leave only when the drain starts: the whole body has been serialized by now.
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        var length = Assert.IsType<long>(response.Content.Headers.ContentLength);
        var file = Assert.Single(server.TempFiles());
        Assert.Matches("^ASPNETCORE_.*\\.tmp$", file.Name);
        // FileBufferingWriteStream moves its memory buffer into the file each time it would overflow, so the file
        // holds all but the last < 30 KiB, not "all but the first 30 KiB".
        Assert.InRange(file.Length, length - MemoryThreshold, length);

        var body = await response.Content.ReadAsByteArrayAsync();
        Assert.Equal(length, body.Length);
        await JsonDocuments.AssertIsDocumentAsync(body, LabRecordGenerator.DefaultRecordCount);
        Assert.True(await server.TempDirectoryEmptiesAsync(s_patience), "the temp file outlived the response");
        Assert.Equal([file.Name], server.CreatedTempFiles());
        await AssertStoppedCleanlyAsync(server);
    }

    public static TheoryData<string> Unbuffered() => new(JsonDocuments.Unbuffered);

    [Theory]
    [MemberData(nameof(Unbuffered))]
    public async Task UnbufferedVariant_DefaultPayload_CreatesNoTempFile(string variant)
    {
        await using var server = await ChildServer.StartAsync();
        using var client = new HttpClient();

        using var response = await client.GetAsync(new Uri(server.Address, $"/lab/json/{variant}"), HttpCompletionOption.ResponseHeadersRead);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Empty(server.TempFiles());
        var body = await response.Content.ReadAsByteArrayAsync();
        await JsonDocuments.AssertIsDocumentAsync(body, LabRecordGenerator.DefaultRecordCount);
        await AssertStoppedCleanlyAsync(server);
        Assert.Empty(server.CreatedTempFiles());
    }

    public static TheoryData<string> Variants() => new(JsonDocuments.Variants);

    [Theory]
    [MemberData(nameof(Variants))]
    public async Task AnyVariant_ClientDisconnectsMidResponse_LeavesNoTempFileLogsNoErrorAndKeepsServing(string variant)
    {
        await using var server = await ChildServer.StartAsync();
        using (var client = new HttpClient())
        {
            using var response = await client.GetAsync(new Uri(server.Address, $"/lab/json/{variant}"), HttpCompletionOption.ResponseHeadersRead);
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            await using var body = await response.Content.ReadAsStreamAsync();
            await body.ReadExactlyAsync(new byte[64 * 1024]);
            if (variant == "newtonsoft-buffered")
            {
                Assert.Single(server.TempFiles());
            }

            // Disposing an unfinished HTTP/1.1 response (and its client) closes the connection mid-body.
        }

        Assert.True(await server.TempDirectoryEmptiesAsync(s_patience), "a temp file outlived the aborted response");
        using (var client = new HttpClient())
        {
            var body = await client.GetByteArrayAsync(new Uri(server.Address, $"/lab/json/{variant}?records=50"));
            await JsonDocuments.AssertIsDocumentAsync(body, 50);
        }

        await AssertStoppedCleanlyAsync(server);
    }

    /// <summary>Stops the server and checks it exited 0 without logging anything at Error or Critical.</summary>
    private static async Task AssertStoppedCleanlyAsync(ChildServer server)
    {
        var (exitCode, output) = await server.StopAsync();
        Assert.Equal(0, exitCode);
        Assert.DoesNotContain(output, ServeLogLines.IsError);
        // The log level took effect (Information lines are there), so the absence of errors means something.
        Assert.Contains(output, line => ServeLogLines.Level(line) == "info");
    }
}
