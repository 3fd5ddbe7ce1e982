using System.Net;
using System.Security.Cryptography;
using Freight.Lab.Payload;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Tus.Interop;

/// <summary>
/// <c>freight serve</c> as users run it (a child process on 127.0.0.1 port 0 with a fresh data directory) for
/// tus-js-client to upload to, once tus-js-client's npm packages are installed; and the source files it uploads.
/// </summary>
public sealed class TusInteropServer : IAsyncLifetime
{
    private FreightProcess? _freight;

    public string Root { get; } = Path.Combine(Path.GetTempPath(), "freight-server-tests", "tus-interop-" + Guid.NewGuid().ToString("N"));

    public Uri Address { get; private set; } = null!;

    /// <summary>The creation URL: <c>POST {server}/tus/</c>.</summary>
    public Uri TusEndpoint => new(Address, "/tus/");

    public HttpClient Client { get; } = new();

    public async Task InitializeAsync()
    {
        await TusJsClient.EnsureInstalledAsync();

        Directory.CreateDirectory(Root);
        _freight = FreightProcess.StartServe(Root, ["--urls", "http://127.0.0.1:0", "--data-dir", Path.Combine(Root, "data")]);
        var lines = await _freight.ReadUntilListeningAsync(1);
        Address = new Uri(lines.Single(l => l.StartsWith("listening: ", StringComparison.Ordinal))["listening: ".Length..]);
    }

    public async Task DisposeAsync()
    {
        Client.Dispose();
        if (_freight is not null)
        {
            await _freight.TerminateAsync();
            await _freight.DisposeAsync();
        }

        if (Directory.Exists(Root))
        {
            Directory.Delete(Root, recursive: true);
        }
    }

    /// <summary>Writes <paramref name="size"/> deterministic pseudo-random bytes (distinct per seed) to a new file; returns its path.</summary>
    public string WriteSource(long size, ulong seed)
    {
        var path = Path.Combine(Root, "sources", $"source-{seed}-{Guid.NewGuid():N}.bin");
        DeterministicPayload.WriteFile(path, size, seed);
        return path;
    }

    /// <summary>GET /files/{name} answers 200 with exactly <paramref name="size"/> bytes whose SHA-256 is <paramref name="sha256"/>.</summary>
    public async Task AssertStoredAsync(string name, long size, string sha256)
    {
        using var response = await Client.GetAsync(new Uri(Address, "/files/" + Uri.EscapeDataString(name)), HttpCompletionOption.ResponseHeadersRead);
        if (response.StatusCode != HttpStatusCode.OK)
        {
            Assert.Fail($"GET /files/{name}: expected 200, got {(int)response.StatusCode}: {await response.Content.ReadAsStringAsync()}");
        }

        await using var content = await response.Content.ReadAsStreamAsync();
        var (length, hash) = await Sha256Async(content);
        Assert.Equal((size, sha256), (length, hash));
    }

    /// <summary>Reads <paramref name="stream"/> to its end; returns the byte count and the lower-case hex SHA-256.</summary>
    public static async Task<(long Length, string Sha256)> Sha256Async(Stream stream)
    {
        using var sha = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        var buffer = new byte[1024 * 1024];
        long length = 0;
        int read;
        while ((read = await stream.ReadAsync(buffer)) > 0)
        {
            sha.AppendData(buffer, 0, read);
            length += read;
        }

        return (length, Convert.ToHexStringLower(sha.GetHashAndReset()));
    }
}
