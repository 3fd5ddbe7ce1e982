using System.Net;
using System.Net.Http.Headers;
using System.Text.Json;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// <c>freight serve</c> (file-system store) killed with SIGKILL at seeded points of 50 commits — some while a
/// body is half written, some right as a whole body has arrived and its commit runs — and started again on
/// the same data directory each time. After every restart each key is one whole version: bytes exactly as one
/// PUT sent them (the last acknowledged one or one sent after it, never an older one), its own ETag, its own
/// content type (or none, when the kill took its sidecar), any stored SHA-256 its own; the listing shows the
/// keys and no temp file, and none is left on disk.
/// </summary>
public sealed class CrashTests(Xunit.Abstractions.ITestOutputHelper output) : IDisposable
{
    private const int Commits = 50;
    private const string Folder = "crash";
    private const string DefaultContentType = "application/octet-stream";

    // Same lengths recur on purpose: a sidecar must tell same-length versions apart across a crash.
    private static readonly int[] s_sizes = [0, 1, 4096, 4096, 65_536, 65_536, Payloads.MiB, 3 * Payloads.MiB];

    private readonly string _directory = Directory.CreateDirectory(Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N"))).FullName;
    private readonly HttpClient _client = new();

    public void Dispose()
    {
        _client.Dispose();
        if (Directory.Exists(_directory))
        {
            Directory.Delete(_directory, recursive: true);
        }
    }

    [Fact]
    public async Task Serve_KilledAtRandomPointsOfFiftyCommits_EveryKeyIsOneWholeVersionAfterRestart()
    {
        var random = new Random(1616);
        string[] keys = [$"{Folder}/a.bin", $"{Folder}/b.bin", $"{Folder}/c.bin"];
        // Per key: the versions it may hold now — the last acknowledged one (null: none yet) and any sent after it.
        var possible = keys.ToDictionary(k => k, _ => new List<Version?> { null });
        var kills = new Dictionary<Kill, int> { [Kill.MidBody] = 0, [Kill.AtCommit] = 0 };
        var landed = 0;

        var server = StartServe();
        try
        {
            var address = await ListeningAsync(server);
            for (var commit = 0; commit < Commits; commit++)
            {
                var key = keys[random.Next(keys.Length)];
                // About 8 kills in 50 commits: each costs a restart of freight serve, most of this test's time.
                var kill = random.Next(12) switch
                {
                    0 => Kill.MidBody,
                    1 => Kill.AtCommit,
                    _ => Kill.None,
                };
                // A body cut off half-way needs to be big enough to be caught there.
                var size = kill == Kill.MidBody ? s_sizes[^random.Next(1, 3)] : s_sizes[random.Next(s_sizes.Length)];
                var version = new Version(Content(size, seed: 16_000 + (ulong)commit), $"application/x-v{commit}", WithDigest: random.Next(2) == 0);

                if (kill == Kill.None)
                {
                    await PutAsync(address, key, version);
                    possible[key] = [version];
                    continue;
                }

                possible[key].Add(version);
                await PutAndKillAsync(server, address, key, version, kill, random);
                kills[kill]++;
                server = StartServe();
                address = await ListeningAsync(server);
                foreach (var each in keys)
                {
                    possible[each] = [await AssertOneWholeVersionAsync(address, each, possible[each])];
                }

                landed += possible[key].Single() == version ? 1 : 0;

                await AssertListingAsync(address, possible);
            }

            foreach (var key in keys)
            {
                await AssertOneWholeVersionAsync(address, key, possible[key]);
            }

            await AssertListingAsync(address, possible);
        }
        finally
        {
            await server.DisposeAsync();
        }

        output.WriteLine($"killed {kills[Kill.MidBody]} times mid-body, {kills[Kill.AtCommit]} times at a commit ({landed} of those commits landed)");
        Assert.InRange(kills[Kill.MidBody] + kills[Kill.AtCommit], 5, Commits);
    }

    private enum Kill
    {
        None,
        MidBody,
        AtCommit,
    }

    /// <summary>One PUT: its bytes, the Content-Type it was sent with, and whether a Content-Digest (SHA-256, stored) went with it.</summary>
    private sealed record Version(byte[] Bytes, string ContentType, bool WithDigest)
    {
        public string ETag { get; } = Files.FilesApi.ETag(Bytes);
    }

    private async Task PutAsync(Uri address, string key, Version version)
    {
        using var request = new HttpRequestMessage(HttpMethod.Put, new Uri(address, "/files/" + key)) { Content = new ByteArrayContent(version.Bytes) };
        request.Content.Headers.ContentType = MediaTypeHeaderValue.Parse(version.ContentType);
        if (version.WithDigest)
        {
            request.Headers.Add("Content-Digest", Sha256Field(version.Bytes));
        }

        using var response = await _client.SendAsync(request);
        Assert.True(response.StatusCode is HttpStatusCode.Created or HttpStatusCode.NoContent, $"PUT {key}: {(int)response.StatusCode}");
        Assert.Equal(version.ETag, response.Headers.ETag?.ToString());
    }

    /// <summary>Sends the PUT over a raw socket and SIGKILLs the server half-way through the body, or right after its last byte.</summary>
    private async Task PutAndKillAsync(FreightProcess server, Uri address, string key, Version version, Kill kill, Random random)
    {
        await using var connection = await RawHttpConnection.OpenAsync(address);
        List<string> headers = ["Content-Type: " + version.ContentType, "Content-Length: " + Invariant(version.Bytes.Length)];
        if (version.WithDigest)
        {
            headers.Add("Content-Digest: " + Sha256Field(version.Bytes));
        }

        await connection.SendAsync(RawHttpConnection.Head("PUT", address, "/files/" + key, [.. headers]));
        if (kill == Kill.MidBody)
        {
            var half = version.Bytes.Length / 2;
            await connection.SendAsync(version.Bytes.AsMemory(0, half));
            // Killed once the server is writing the temp file: a body cut off where it stands.
            var files = Path.Combine(_directory, "files");
            Assert.True(await EventuallyAsync(() => Directory.Exists(files) && Directory.GetFiles(files, "*.freight-tmp", SearchOption.AllDirectories).Any(f => new FileInfo(f).Length > 0)), "the PUT never started writing");
        }
        else
        {
            await connection.SendAsync(version.Bytes);
            // Somewhere around the commit: before it, inside it (between sidecar and data), or just after; which
            // of them it was is not asserted, only that the key then holds one whole version.
            await Task.Delay(random.Next(40));
        }

        await server.DisposeAsync();
    }

    /// <summary>
    /// The key holds one of <paramref name="possible"/> whole (null: absent, 404 problem), with its own ETag and
    /// content type (or the default, its sidecar lost to the kill), and the SHA-256 it answers is of its bytes.
    /// Returns the version found.
    /// </summary>
    private async Task<Version?> AssertOneWholeVersionAsync(Uri address, string key, List<Version?> possible)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, new Uri(address, "/files/" + key));
        request.Headers.Add("Want-Repr-Digest", "sha-256=1");
        using var response = await _client.SendAsync(request);
        if (response.StatusCode == HttpStatusCode.NotFound)
        {
            Assert.True(possible.Contains(null), $"{key} is gone, but a version of it was acknowledged");
            await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
            return null;
        }

        await AssertStatusAsync(response, HttpStatusCode.OK);
        var body = await response.Content.ReadAsByteArrayAsync();
        var found = possible.LastOrDefault(v => v is not null && v.Bytes.AsSpan().SequenceEqual(body))
            ?? throw new Xunit.Sdk.XunitException($"{key} holds {body.Length} bytes that are none of the {possible.Count} versions it may hold");
        Assert.Equal(found.ETag, response.Headers.ETag?.ToString());
        Assert.Equal(Sha256Field(body), Assert.Single(response.Headers.GetValues("Repr-Digest")));
        Assert.Contains(response.Content.Headers.ContentType?.MediaType, new[] { found.ContentType, DefaultContentType });
        return found;
    }

    /// <summary>The folder lists exactly the keys that exist, each with the ETag of the version it holds; no temp file anywhere on disk.</summary>
    private async Task AssertListingAsync(Uri address, Dictionary<string, List<Version?>> held)
    {
        using var response = await _client.GetAsync(new Uri(address, "/files?prefix=" + Folder));
        await AssertStatusAsync(response, HttpStatusCode.OK);
        using var listing = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        var listed = listing.RootElement.GetProperty("items").EnumerateArray()
            .ToDictionary(item => item.GetProperty("name").GetString()!, item => item.GetProperty(ETagProperty).GetString() ?? "");
        var expected = held.Where(pair => pair.Value.Single() is not null).ToDictionary(pair => pair.Key, pair => pair.Value.Single()!.ETag);
        Assert.Equal(expected.OrderBy(p => p.Key, StringComparer.Ordinal).ToList(), listed.OrderBy(p => p.Key, StringComparer.Ordinal).ToList());
        Assert.Empty(Directory.GetFiles(_directory, "*.freight-tmp", SearchOption.AllDirectories));
    }

    private FreightProcess StartServe() => FreightProcess.StartServe(_directory, ["--urls", "http://127.0.0.1:0", "--data-dir", _directory]);

    private static async Task<Uri> ListeningAsync(FreightProcess process) =>
        new((await process.ReadUntilListeningAsync(1)).Single(l => l.StartsWith("listening: ", StringComparison.Ordinal))["listening: ".Length..]);
}
