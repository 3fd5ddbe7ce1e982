using System.Net.Http.Headers;
using System.Security.Cryptography;

namespace Freight.Bench.Tests.Client;

internal static class TestFiles
{
    /// <summary>Reproducible pseudo-random bytes: no run of them repeats, so a shifted or mixed copy never matches.</summary>
    public static byte[] Bytes(int length, int seed)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }

    public static string Sha256Hex(byte[] bytes) => Convert.ToHexStringLower(SHA256.HashData(bytes));

    /// <summary>The ETag a server gives <paramref name="url"/> now, by HEAD.</summary>
    public static async Task<EntityTagHeaderValue> ETagAsync(string url, HttpClient? client = null)
    {
        using var owned = client is null ? new HttpClient() : null;
        using var request = new HttpRequestMessage(HttpMethod.Head, url);
        using var response = await (client ?? owned!).SendAsync(request);
        response.EnsureSuccessStatusCode();
        return response.Headers.ETag ?? throw new InvalidOperationException($"{url} has no ETag.");
    }
}
