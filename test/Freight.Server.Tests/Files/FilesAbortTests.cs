using System.Net;
using System.Text.Json;
using Freight.Server.Hosting;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Files;

/// <summary>
/// A write commits whole or leaves nothing: a client that goes away mid-body leaves no file and no temp
/// file, a server killed mid-upload leaves a temp file that the next start sweeps, and concurrent writers
/// to one path end with exactly one of their contents, whole.
/// </summary>
public sealed class FilesAbortTests(FileSystemFilesServer server) : IClassFixture<FileSystemFilesServer>
{
    private const int Declared = 2 * Payloads.MiB;

    public enum Abort
    {
        /// <summary>SO_LINGER 0: the close sends a TCP RST.</summary>
        Reset,

        /// <summary>A plain close: FIN, the body ends short of its Content-Length.</summary>
        Close,
    }

    [Theory]
    [InlineData(Abort.Reset)]
    [InlineData(Abort.Close)]
    public async Task Put_ClientGoesAwayMidBody_LeavesNothing(Abort abort)
    {
        var key = $"{NewRoot()}/torn.bin";
        await using (var connection = await RawHttpConnection.OpenAsync(server.HttpAddress))
        {
            await SendHalfAsync(connection, server.HttpAddress, key);
            Assert.True(await EventuallyAsync(() => server.FilesTempFiles() is [var temp] && new FileInfo(temp).Length > 0), "the upload never started writing");
            if (abort == Abort.Reset)
            {
                connection.Reset();
            }
            else
            {
                connection.Close();
            }
        }

        Assert.True(await EventuallyAsync(() => server.FilesTempFiles().Length == 0), "the temp file outlived the request");
        await AssertAbsentAsync(server, key);
        // Nothing left: no file, no temp, and the folder the upload made is gone again (or empty).
        var folder = Path.GetDirectoryName(server.DiskPath(key))!;
        Assert.True(!Directory.Exists(folder) || Directory.GetFiles(folder).Length == 0, folder);
    }

    [Fact]
    public async Task Put_AbortedThenServerRestarted_StillNothingAndTheCommittedFileIntact()
    {
        var directory = NewDataDirectory();
        var kept = Content(100_000, seed: 41);
        try
        {
            await using (var first = await StartInProcessAsync(directory))
            {
                using var client = new HttpClient();
                using (var created = await client.PutAsync(new Uri(first.Address, "/files/r/kept.bin"), new ByteArrayContent(kept)))
                {
                    await AssertStatusAsync(created, HttpStatusCode.Created);
                }

                await using (var connection = await RawHttpConnection.OpenAsync(first.Address))
                {
                    await SendHalfAsync(connection, first.Address, "r/torn.bin");
                    Assert.True(await EventuallyAsync(() => TempFiles(directory) is [var temp] && new FileInfo(temp).Length > 0), "the upload never started writing");
                    connection.Reset();
                }

                Assert.True(await EventuallyAsync(() => TempFiles(directory).Length == 0), "the temp file outlived the request");
            }

            await using var second = await StartInProcessAsync(directory);
            await AssertAfterRestartAsync(second.Address, directory, kept);
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    [Fact]
    public async Task Put_ServerKilledMidUpload_NextStartSweepsTheTempFileAndShowsNothing()
    {
        var directory = NewDataDirectory();
        var kept = Content(100_000, seed: 42);
        RawHttpConnection? connection = null;
        try
        {
            await using (var first = FreightProcess.StartServe(directory, ["--urls", "http://127.0.0.1:0", "--data-dir", directory]))
            {
                var address = ListeningAddress(await first.ReadUntilListeningAsync(1));
                using var client = new HttpClient();
                using (var created = await client.PutAsync(new Uri(address, "/files/r/kept.bin"), new ByteArrayContent(kept)))
                {
                    await AssertStatusAsync(created, HttpStatusCode.Created);
                }

                connection = await RawHttpConnection.OpenAsync(address);
                await SendHalfAsync(connection, address, "r/torn.bin");
                Assert.True(await EventuallyAsync(() => TempFiles(directory) is [var temp] && new FileInfo(temp).Length > 0), "the upload never started writing");

                // Disposing kills the process (SIGKILL) while the client is still connected: no handler runs, the temp file stays.
            }

            Assert.Single(TempFiles(directory));
            await connection.DisposeAsync();
            await using var second = FreightProcess.StartServe(directory, ["--urls", "http://127.0.0.1:0", "--data-dir", directory]);
            await AssertAfterRestartAsync(ListeningAddress(await second.ReadUntilListeningAsync(1)), directory, kept);
        }
        finally
        {
            if (connection is not null)
            {
                await connection.DisposeAsync();
            }

            Directory.Delete(directory, recursive: true);
        }
    }

    [Fact]
    public async Task Put_TwentyConcurrentWritersToOnePath_LeaveExactlyOneWholePayload()
    {
        var key = $"{NewRoot()}/contended.bin";
        var payloads = Enumerable.Range(0, 20).Select(i => Content(256 * 1024 + i, seed: 100 + (ulong)i)).ToArray();

        var responses = await Task.WhenAll(payloads.Select(async (payload, i) =>
        {
            using var request = Put(server, key, payload, i % 2 == 0 ? Protocol.Http11 : Protocol.Http2);
            using var response = await server.Client.SendAsync(request);
            return (response.StatusCode, ETag: response.Headers.ETag?.ToString(), Body: await response.Content.ReadAsStringAsync());
        }));

        for (var i = 0; i < payloads.Length; i++)
        {
            Assert.True(responses[i].StatusCode is HttpStatusCode.Created or HttpStatusCode.NoContent, $"writer {i}: {(int)responses[i].StatusCode} {responses[i].Body}");
            Assert.Equal(ETag(payloads[i]), responses[i].ETag);
        }

        Assert.Contains(responses, r => r.StatusCode == HttpStatusCode.Created);
        var onDisk = await File.ReadAllBytesAsync(server.DiskPath(key));
        var winner = Array.FindIndex(payloads, p => p.AsSpan().SequenceEqual(onDisk));
        Assert.True(winner >= 0, $"the stored {onDisk.Length} bytes are none of the 20 payloads");
        Assert.Empty(server.FilesTempFiles());
        Assert.Equal(
            new[] { ".contended.bin.freight-meta", "contended.bin" },
            Directory.GetFiles(Path.GetDirectoryName(server.DiskPath(key))!).Select(Path.GetFileName).Order(StringComparer.Ordinal));
        await AssertStoredAsync(server, key, payloads[winner]);
    }

    private static async Task SendHalfAsync(RawHttpConnection connection, Uri address, string key)
    {
        await connection.SendAsync(RawHttpConnection.Head("PUT", address, "/files/" + key, "Content-Length: " + Invariant(Declared)));
        await connection.SendAsync(Content(Declared / 2));
    }

    /// <summary>After a restart: no temp file, the torn upload absent, the committed one listed with its ETag and served whole.</summary>
    private static async Task AssertAfterRestartAsync(Uri address, string directory, byte[] kept)
    {
        Assert.Empty(TempFiles(directory));
        using var client = new HttpClient();
        using (var torn = await client.GetAsync(new Uri(address, "/files/r/torn.bin")))
        {
            await ProblemAssert.IsProblemAsync(torn, HttpStatusCode.NotFound);
        }

        using (var listing = await client.GetAsync(new Uri(address, "/files?prefix=r")))
        {
            await AssertStatusAsync(listing, HttpStatusCode.OK);
            using var json = JsonDocument.Parse(await listing.Content.ReadAsStringAsync());
            var item = Assert.Single(json.RootElement.GetProperty("items").EnumerateArray());
            Assert.Equal("r/kept.bin", item.GetProperty("name").GetString());
            Assert.Equal(ETag(kept), item.GetProperty(ETagProperty).GetString());
        }

        using var get = await client.GetAsync(new Uri(address, "/files/r/kept.bin"));
        await AssertStatusAsync(get, HttpStatusCode.OK);
        Assert.Equal(kept, await get.Content.ReadAsByteArrayAsync());
    }

    private static string NewDataDirectory()
    {
        var directory = Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(directory);
        return directory;
    }

    private static string[] TempFiles(string dataDirectory)
    {
        var files = Path.Combine(dataDirectory, "files");
        return Directory.Exists(files) ? Directory.GetFiles(files, "*.freight-tmp", SearchOption.AllDirectories) : [];
    }

    private static Uri ListeningAddress(IReadOnlyList<string> lines) =>
        new(lines.Single(l => l.StartsWith("listening: ", StringComparison.Ordinal))["listening: ".Length..]);

    private static async Task<InProcessServer> StartInProcessAsync(string directory)
    {
        var server = FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", directory]);
        await server.StartAsync();
        return new InProcessServer(server, new Uri(server.Urls.Single()));
    }

    private sealed record InProcessServer(FreightServer Server, Uri Address) : IAsyncDisposable
    {
        public ValueTask DisposeAsync() => Server.DisposeAsync();
    }
}
