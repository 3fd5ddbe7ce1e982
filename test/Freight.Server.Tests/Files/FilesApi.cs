using System.Collections.Concurrent;
using System.Globalization;
using System.IO.Hashing;
using System.Net;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Text.Json;
using Freight.Hashing;
using Freight.Lab.Payload;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Files;

/// <summary>Requests to the files API and the checks every files test shares.</summary>
internal static class FilesApi
{
    /// <summary>The JSON name of <c>StoredFile.ETag</c>.</summary>
    public const string ETagProperty = "etag";

    // Bounded waits for the server to notice an abort, not timing assertions.
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(10);

    /// <summary>A folder of its own for one test, so tests sharing a server never see each other's files.</summary>
    public static string NewRoot() => "t" + Guid.NewGuid().ToString("N")[..12];

    /// <summary>The strong ETag the server derives from content: <c>"</c> XXH3-128 hex <c>"</c>.</summary>
    public static string ETag(ReadOnlySpan<byte> content) => Quote(Payloads.Hash(content));

    public static string Quote(string hex) => "\"" + hex + "\"";

    public static string Sha256Field(ReadOnlySpan<byte> content) => "sha-256=:" + Convert.ToBase64String(SHA256.HashData(content)) + ":";

    public static string Sha512Field(ReadOnlySpan<byte> content) => "sha-512=:" + Convert.ToBase64String(SHA512.HashData(content)) + ":";

    public static string Md5Value(ReadOnlySpan<byte> content) => Convert.ToBase64String(MD5.HashData(content));

    /// <summary>The first <paramref name="size"/> bytes of the payload with <paramref name="seed"/> (distinct contents for distinct seeds).</summary>
    public static byte[] Content(int size, ulong seed = DeterministicPayload.DefaultSeed) => DeterministicPayload.Create(size, seed);

    public static HttpRequestMessage Put(FilesServer server, string key, byte[] content, Protocol protocol = Protocol.Http11)
    {
        var request = server.Request(HttpMethod.Put, protocol, "/files/" + key);
        request.Content = new ByteArrayContent(content);
        request.Content.Headers.ContentType = new MediaTypeHeaderValue("application/octet-stream");
        return request;
    }

    public static async Task<HttpResponseMessage> PutAsync(FilesServer server, string key, byte[] content, params (string Name, string Value)[] headers)
    {
        using var request = Put(server, key, content);
        foreach (var (name, value) in headers)
        {
            // Content-MD5 is a content header to HttpClient; the rest are request headers.
            Assert.True(request.Headers.TryAddWithoutValidation(name, value) || request.Content!.Headers.TryAddWithoutValidation(name, value), name);
        }

        return await server.Client.SendAsync(request);
    }

    /// <summary>PUTs <paramref name="content"/> to a new path and asserts the 201; returns the ETag.</summary>
    public static async Task<string> CreateAsync(FilesServer server, string key, byte[] content)
    {
        using var response = await PutAsync(server, key, content);
        await AssertStatusAsync(response, HttpStatusCode.Created);
        return response.Headers.ETag!.ToString();
    }

    public static async Task<HttpResponseMessage> SendAsync(FilesServer server, HttpMethod method, string pathAndQuery, params (string Name, string Value)[] headers)
    {
        using var request = server.Request(method, Protocol.Http11, pathAndQuery);
        foreach (var (name, value) in headers)
        {
            Assert.True(request.Headers.TryAddWithoutValidation(name, value), name);
        }

        return await server.Client.SendAsync(request);
    }

    public static async Task AssertStatusAsync(HttpResponseMessage response, HttpStatusCode status)
    {
        if (response.StatusCode != status)
        {
            Assert.Fail($"expected {(int)status}, got {(int)response.StatusCode}: {await response.Content.ReadAsStringAsync()}");
        }
    }

    /// <summary>One page of <c>GET /files?{query}</c>, asserted 200 and JSON.</summary>
    public static async Task<JsonDocument> ListAsync(FilesServer server, string query, params (string Name, string Value)[] headers)
    {
        using var response = await SendAsync(server, HttpMethod.Get, "/files?" + query, headers);
        await AssertStatusAsync(response, HttpStatusCode.OK);
        Assert.Equal("application/json", response.Content.Headers.ContentType?.MediaType);
        return JsonDocument.Parse(await response.Content.ReadAsStringAsync());
    }

    /// <summary>The listing's entry for <paramref name="key"/>, or null when the listing of its folder does not hold it.</summary>
    public static async Task<JsonElement?> ListedAsync(FilesServer server, string key)
    {
        var folder = key[..key.LastIndexOf('/')];
        using var listing = await ListAsync(server, "prefix=" + Uri.EscapeDataString(folder));
        foreach (var item in listing.RootElement.GetProperty("items").EnumerateArray())
        {
            if (item.GetProperty("name").GetString() == key)
            {
                return item.Clone();
            }
        }

        return null;
    }

    /// <summary>
    /// <paramref name="key"/> holds exactly <paramref name="content"/>: in the listing (size, ETag), on disk for the
    /// file-system store, and through GET — last, so a failure there means everything before it held.
    /// </summary>
    public static async Task AssertStoredAsync(FilesServer server, string key, byte[] content)
    {
        var listed = await ListedAsync(server, key) ?? throw new Xunit.Sdk.XunitException($"'{key}' is not listed");
        Assert.Equal(content.Length, listed.GetProperty("size").GetInt64());
        Assert.Equal(ETag(content), listed.GetProperty(ETagProperty).GetString());
        if (server.FilesDirectory is not null)
        {
            Assert.Equal(content, await File.ReadAllBytesAsync(server.DiskPath(key)));
        }

        using var response = await SendAsync(server, HttpMethod.Get, "/files/" + key);
        await AssertStatusAsync(response, HttpStatusCode.OK);
        Assert.Equal(ETag(content), response.Headers.ETag?.ToString());
        Assert.Equal(content, await response.Content.ReadAsByteArrayAsync());
    }

    /// <summary>Nothing under <paramref name="key"/>: not listed, no file, no temp file in the store, and GET answers 404 problem.</summary>
    public static async Task AssertAbsentAsync(FilesServer server, string key)
    {
        Assert.Null(await ListedAsync(server, key));
        if (server.FilesDirectory is not null)
        {
            Assert.False(File.Exists(server.DiskPath(key)), $"'{key}' exists on disk");
            Assert.Empty(server.FilesTempFiles());
        }

        using var response = await SendAsync(server, HttpMethod.Get, "/files/" + key);
        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
    }

    /// <summary>Sends <paramref name="head"/> then <paramref name="body"/> on a fresh socket and reads the answer.</summary>
    public static async Task<RawHttpResponse> RawAsync(Uri address, byte[] head, byte[]? body = null)
    {
        await using var connection = await RawHttpConnection.OpenAsync(address);
        await connection.SendAsync(head);
        var sending = body is null ? Task.CompletedTask : connection.SendIgnoringServerCloseAsync(body);
        var response = await connection.ReadResponseAsync();
        await connection.DisposeAsync();
        await sending;
        return response;
    }

    public static string Invariant(long value) => value.ToString(CultureInfo.InvariantCulture);

    public static async Task<bool> EventuallyAsync(Func<bool> condition)
    {
        var deadline = DateTime.UtcNow + s_patience;
        while (!condition())
        {
            if (DateTime.UtcNow > deadline)
            {
                return false;
            }

            await Task.Delay(20);
        }

        return true;
    }

    /// <summary>Whether any descriptor of this process (the server runs in it) refers to <paramref name="path"/>.</summary>
    public static bool OpenInThisProcess(string path)
    {
        foreach (var descriptor in Directory.EnumerateFileSystemEntries("/proc/self/fd"))
        {
            try
            {
                if (new FileInfo(descriptor).LinkTarget is { } target && target.StartsWith(path, StringComparison.Ordinal))
                {
                    return true;
                }
            }
            catch (IOException)
            {
                // Closed between the listing and the look.
            }
        }

        return false;
    }
}

/// <summary>
/// The deterministic payload of any length, generated as it is read: a 256 MiB body without a 256 MiB array.
/// Not seekable, so HttpClient sends it chunked (HTTP/1.1) unless the content's length is set.
/// </summary>
internal sealed class GeneratedPayloadStream(long length, ulong seed = DeterministicPayload.DefaultSeed) : Stream
{
    private static readonly ConcurrentDictionary<(long, ulong), Lazy<string>> s_hashes = new();

    private long _position;

    /// <summary>XXH3-128 hex of the first <paramref name="length"/> payload bytes, computed once per length.</summary>
    public static string Hash(long length, ulong seed = DeterministicPayload.DefaultSeed) =>
        s_hashes.GetOrAdd((length, seed), static key => new Lazy<string>(() =>
        {
            var hasher = new XxHash128();
            var buffer = new byte[1024 * 1024];
            for (long offset = 0; offset < key.Item1; offset += buffer.Length)
            {
                var count = (int)Math.Min(buffer.Length, key.Item1 - offset);
                DeterministicPayload.Fill(buffer.AsSpan(0, count), offset, key.Item2);
                hasher.Append(buffer.AsSpan(0, count));
            }

            return HashHex.ToHex(hasher.GetCurrentHashAsUInt128());
        })).Value;

    public override bool CanRead => true;

    public override bool CanSeek => false;

    public override bool CanWrite => false;

    public override long Length => throw new NotSupportedException();

    public override long Position
    {
        get => throw new NotSupportedException();
        set => throw new NotSupportedException();
    }

    public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

    public override int Read(Span<byte> buffer)
    {
        var count = (int)Math.Min(buffer.Length, length - _position);
        DeterministicPayload.Fill(buffer[..count], _position, seed);
        _position += count;
        return count;
    }

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        Task.FromResult(Read(buffer.AsSpan(offset, count)));

    public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) =>
        ValueTask.FromResult(Read(buffer.Span));

    public override void Flush()
    {
    }

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
}
