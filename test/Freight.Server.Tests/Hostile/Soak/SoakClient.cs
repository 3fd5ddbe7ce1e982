using System.Diagnostics;
using System.Globalization;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Text;
using Freight.Lab.Payload;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Tus;

namespace Freight.Server.Tests.Hostile.Soak;

/// <summary>
/// One of the soak's clients: a sequential loop of seeded-random operations on its own keys (whose state it
/// knows exactly) and on the keys all clients share (conditional writes that may lose with 412). Every answer
/// is checked against the model as it comes — status, bytes, headers — and anything the model does not allow
/// is a fault, counted and kept; the loop goes on, so one run shows every kind of fault it meets.
/// </summary>
internal sealed class SoakClient : IDisposable
{
    private const string ProblemJson = "application/problem+json";

    // Sizes around the file cache's 64 KiB line (cached whole below it, streamed from disk above), the
    // transport's 64 KiB blocks, and a few MiB: big enough to span many reads and writes, small enough that
    // six clients on two shared cores finish hundreds of operations a minute.
    private static readonly (int Weight, int Min, int Max)[] s_sizes = [(10, 0, 16), (45, 17, 70_000), (35, 70_001, 600_000), (10, 600_001, 3_000_000)];

    private readonly int _index;
    private readonly Random _random;
    private readonly HttpClient _http;
    private readonly SoakCounters _counters;
    private readonly Func<bool> _stop;
    private readonly IReadOnlyList<SharedKey> _shared;
    private readonly List<(string Name, Func<Task> Run, int Weight)> _operations;
    private ulong _versions;

    public SoakClient(int index, int seed, Uri address, SoakCounters counters, Func<bool> stop, IReadOnlyList<SharedKey> shared, int ownedKeys)
    {
        _index = index;
        _random = new Random(seed * 1_000 + index);
        _http = new HttpClient { BaseAddress = address };
        _counters = counters;
        _stop = stop;
        _shared = shared;
        Owned = Enumerable.Range(0, ownedKeys).Select(k => new OwnedKey($"{Prefix}/d{k % 3}/k{k}.bin")).ToList();

        // The mix: reads outnumber writes, as in use; every kind runs many times a minute.
        _operations =
        [
            ("put", PutAsync, 14),
            ("put-chunked", PutChunkedAsync, 10),
            ("put-bad-digest", PutBadDigestAsync, 2),
            ("get", GetAsync, 24),
            ("head", HeadAsync, 4),
            ("delete", DeleteAsync, 6),
            ("list", ListAsync, 5),
            ("tus-upload", TusUploadAsync, 7),
            ("tus-abandon", TusAbandonAsync, 3),
            ("shared-write", SharedWriteAsync, 6),
            ("shared-read", SharedReadAsync, 5),
            ("shared-delete", SharedDeleteAsync, 1),
        ];
    }

    /// <summary>The folder this client's keys live in.</summary>
    public string Prefix => $"soak/c{_index}";

    public IReadOnlyList<OwnedKey> Owned { get; }

    /// <summary>Names of tus uploads that finished: their records may stay in the tus directory (a day), their bytes may not.</summary>
    public List<string> FinishedUploads { get; } = [];

    /// <summary>Operation names, for the report's table in a stable order.</summary>
    public IEnumerable<string> OperationNames => _operations.Select(o => o.Name);

    public async Task RunAsync()
    {
        while (!_stop())
        {
            var operation = _operations[Weighted(_operations.Select(o => o.Weight))];
            try
            {
                await operation.Run();
            }
            catch (Exception exception) when (exception is HttpRequestException or IOException or TaskCanceledException or FormatException)
            {
                _counters.Fault($"client {_index} {operation.Name}: {exception.GetType().Name}: {exception.Message}");
            }
        }
    }

    /// <summary>An index drawn with the probabilities <paramref name="weights"/> give.</summary>
    private int Weighted(IEnumerable<int> weights)
    {
        var all = weights.ToArray();
        var pick = _random.Next(all.Sum());
        var index = 0;
        while ((pick -= all[index]) >= 0)
        {
            index++;
        }

        return index;
    }

    public void Dispose() => _http.Dispose();

    private OwnedKey AnyOwned() => Owned[_random.Next(Owned.Count)];

    private (StoredVersion Version, byte[] Bytes) NewVersion()
    {
        var (_, min, max) = s_sizes[Weighted(s_sizes.Select(s => s.Weight))];
        return StoredVersion.Create(_random.Next(min, max + 1), ((ulong)(_index + 1) << 40) | ++_versions);
    }

    private async Task PutAsync()
    {
        var key = AnyOwned();
        var (version, bytes) = NewVersion();
        await PutOwnedAsync("put", key, version, new ByteArrayContent(bytes), bytes);
    }

    private async Task PutChunkedAsync()
    {
        var key = AnyOwned();
        var (version, bytes) = NewVersion();

        // Not seekable: HttpClient sends it with Transfer-Encoding: chunked.
        await PutOwnedAsync("put-chunked", key, version, new StreamContent(new GeneratedPayloadStream(version.Length, version.Seed)), bytes);
    }

    /// <summary>PUT with one of the request's optional parts — digests, preconditions — chosen at random; the model says what it must answer.</summary>
    private async Task PutOwnedAsync(string operation, OwnedKey key, StoredVersion version, HttpContent content, byte[] bytes)
    {
        using var request = new HttpRequestMessage(HttpMethod.Put, "/files/" + key.Name) { Content = content };
        content.Headers.ContentType = new MediaTypeHeaderValue("application/octet-stream");
        var expected = key.Current is null ? 201 : 204;
        var wantsDigest = false;
        switch (_random.Next(7))
        {
            case 0:
                request.Headers.Add("Content-Digest", FilesApi.Sha256Field(bytes));
                break;
            case 1:
                request.Headers.Add("Content-Digest", FilesApi.Sha512Field(bytes));
                break;
            case 2:
                request.Headers.Add("Want-Repr-Digest", "sha-256=9");
                wantsDigest = true;
                break;
            case 3:
                request.Headers.TryAddWithoutValidation("If-None-Match", "*");
                expected = key.Current is null ? 201 : 412;
                break;
            case 4 when key.Current is not null:
                request.Headers.TryAddWithoutValidation("If-Match", key.Current.ETag);
                break;
            case 5:
                // A version that was never stored here: the precondition fails, present or not.
                request.Headers.TryAddWithoutValidation("If-Match", "\"00000000000000000000000000000000\"");
                expected = 412;
                break;
        }

        var (response, _) = await SendAsync(operation, request, bytes.Length, expected);
        using (response)
        {
            if ((int)response.StatusCode != expected || expected == 412)
            {
                return;
            }

            Expect(response.Headers.ETag?.ToString() == version.ETag, operation, key.Name, $"ETag {response.Headers.ETag} for {version.ETag}");
            if (wantsDigest)
            {
                ExpectHeader(response, "Repr-Digest", FilesApi.Sha256Field(bytes), operation, key.Name);
            }

            key.Current = version;
        }
    }

    /// <summary>A body whose Content-Digest names other bytes: 400 problem, and the key keeps what it had.</summary>
    private async Task PutBadDigestAsync()
    {
        var key = AnyOwned();
        var (version, bytes) = NewVersion();
        using var request = new HttpRequestMessage(HttpMethod.Put, "/files/" + key.Name)
        {
            Content = _random.Next(2) == 0 ? new ByteArrayContent(bytes) : new StreamContent(new GeneratedPayloadStream(version.Length, version.Seed)),
        };
        request.Headers.Add("Content-Digest", "sha-256=:" + Convert.ToBase64String(SHA256.HashData(Encoding.ASCII.GetBytes("not these bytes"))) + ":");
        var (response, _) = await SendAsync("put-bad-digest", request, bytes.Length, 400);
        response.Dispose();
    }

    private async Task GetAsync()
    {
        var key = AnyOwned();
        var current = key.Current;
        using var request = new HttpRequestMessage(HttpMethod.Get, "/files/" + key.Name);
        if (current is null)
        {
            var ifMatch = _random.Next(4) == 0;
            if (ifMatch)
            {
                request.Headers.TryAddWithoutValidation("If-Match", "\"00000000000000000000000000000000\"");
            }

            // If-Match on a missing file: 412 (RFC 9110 §13.1.1, no current representation) or 404 both keep the promise.
            var (missing, _) = await SendAsync("get", request, 0, ifMatch ? [404, 412] : [404]);
            missing.Dispose();
            return;
        }

        var bytes = current.Bytes();
        var length = bytes.Length;
        switch (_random.Next(8))
        {
            case 0 or 1:
                (await GetWholeAsync(key, request, bytes))?.Dispose();
                break;
            case 2 when length > 0:
            {
                var (from, to, header) = AnyRange(length);
                request.Headers.TryAddWithoutValidation("Range", header);
                await GetRangeAsync(key, request, bytes, from, to);
                break;
            }

            case 3 when length >= 8:
            {
                // Two ranges with a gap between them: not coalesced, so multipart/byteranges.
                var firstEnd = _random.Next(0, length / 2 - 1);
                var secondStart = _random.Next(firstEnd + 2, length);
                var secondEnd = _random.Next(secondStart, length);
                var firstStart = _random.Next(0, firstEnd + 1);
                request.Headers.TryAddWithoutValidation("Range", Invariant($"bytes={firstStart}-{firstEnd},{secondStart}-{secondEnd}"));
                await GetMultipartAsync(key, request, bytes, [(firstStart, firstEnd), (secondStart, secondEnd)]);
                break;
            }

            case 4:
            {
                request.Headers.TryAddWithoutValidation("If-None-Match", current.ETag);
                var (response, body) = await SendAsync("get", request, 0, 304);
                using (response)
                {
                    Expect(body.Length == 0, "get", key.Name, $"a 304 with {body.Length} body bytes");
                    Expect(response.Headers.ETag?.ToString() == current.ETag, "get", key.Name, $"304 ETag {response.Headers.ETag} for {current.ETag}");
                }

                break;
            }

            case 5:
            {
                request.Headers.TryAddWithoutValidation("If-Match", "\"00000000000000000000000000000000\"");
                var (response, _) = await SendAsync("get", request, 0, 412);
                response.Dispose();
                break;
            }

            case 6 when length > 0:
            {
                // If-Range: the current ETag keeps the range, another one gets the whole file.
                var (from, to, header) = AnyRange(length);
                request.Headers.TryAddWithoutValidation("Range", header);
                if (_random.Next(2) == 0)
                {
                    request.Headers.TryAddWithoutValidation("If-Range", current.ETag);
                    await GetRangeAsync(key, request, bytes, from, to);
                }
                else
                {
                    request.Headers.TryAddWithoutValidation("If-Range", "\"00000000000000000000000000000000\"");
                    (await GetWholeAsync(key, request, bytes))?.Dispose();
                }

                break;
            }

            case 7:
            {
                request.Headers.Add("Want-Repr-Digest", "sha-256=9");
                var response = await GetWholeAsync(key, request, bytes);
                if (response is not null)
                {
                    ExpectHeader(response, "Repr-Digest", FilesApi.Sha256Field(bytes), "get", key.Name);
                    response.Dispose();
                }

                break;
            }

            default:
                (await GetWholeAsync(key, request, bytes))?.Dispose();
                break;
        }
    }

    /// <summary>A 200 with exactly <paramref name="bytes"/> and their ETag; returns the response (the caller disposes it) or null when the status was wrong.</summary>
    private async Task<HttpResponseMessage?> GetWholeAsync(OwnedKey key, HttpRequestMessage request, byte[] bytes)
    {
        var (response, body) = await SendAsync("get", request, 0, 200);
        if ((int)response.StatusCode != 200)
        {
            response.Dispose();
            return null;
        }

        Expect(body.AsSpan().SequenceEqual(bytes), "get", key.Name, $"{body.Length} bytes that are not the {bytes.Length} stored");
        Expect(response.Headers.ETag?.ToString() == key.Current!.ETag, "get", key.Name, $"ETag {response.Headers.ETag} for {key.Current.ETag}");
        return response;
    }

    private async Task GetRangeAsync(OwnedKey key, HttpRequestMessage request, byte[] bytes, int from, int to)
    {
        var (response, body) = await SendAsync("get", request, 0, 206);
        using (response)
        {
            if ((int)response.StatusCode != 206)
            {
                return;
            }

            Expect(body.AsSpan().SequenceEqual(bytes.AsSpan(from, to - from + 1)), "get", key.Name, $"range {from}-{to}: wrong bytes");
            ExpectHeader(response, "Content-Range", Invariant($"bytes {from}-{to}/{bytes.Length}"), "get", key.Name);
            Expect(response.Headers.ETag?.ToString() == key.Current!.ETag, "get", key.Name, $"206 ETag {response.Headers.ETag} for {key.Current.ETag}");
        }
    }

    /// <summary>Each part of a multipart/byteranges answer: its Content-Range line, a blank line, then exactly its bytes.</summary>
    private async Task GetMultipartAsync(OwnedKey key, HttpRequestMessage request, byte[] bytes, (int From, int To)[] ranges)
    {
        var (response, body) = await SendAsync("get", request, 0, 206);
        using (response)
        {
            if ((int)response.StatusCode != 206)
            {
                return;
            }

            Expect(response.Content.Headers.ContentType?.MediaType == "multipart/byteranges", "get", key.Name, $"Content-Type {response.Content.Headers.ContentType}");
            var at = 0;
            foreach (var (from, to) in ranges)
            {
                var line = Encoding.ASCII.GetBytes(Invariant($"Content-Range: bytes {from}-{to}/{bytes.Length}\r\n"));
                var found = body.AsSpan(at).IndexOf(line);
                var blank = found < 0 ? -1 : body.AsSpan(at + found).IndexOf("\r\n\r\n"u8);
                if (!Expect(blank >= 0, "get", key.Name, $"no part for {from}-{to}"))
                {
                    return;
                }

                at += found + blank + 4;
                var part = body.AsSpan(at, Math.Min(to - from + 1, body.Length - at));
                Expect(part.SequenceEqual(bytes.AsSpan(from, to - from + 1)), "get", key.Name, $"part {from}-{to}: wrong bytes");
                at += part.Length;
            }
        }
    }

    /// <summary>One range in each of its forms: <c>a-b</c>, <c>a-</c>, <c>-n</c> (n may exceed the length: the whole file).</summary>
    private (int From, int To, string Header) AnyRange(int length)
    {
        var from = _random.Next(length);
        switch (_random.Next(3))
        {
            case 0:
                var to = Math.Min(length - 1, from + _random.Next(1 + Math.Min(length, 200_000)));
                return (from, to, Invariant($"bytes={from}-{to}"));
            case 1:
                return (from, length - 1, Invariant($"bytes={from}-"));
            default:
                var suffix = _random.Next(1, length + 10);
                return (Math.Max(0, length - suffix), length - 1, Invariant($"bytes=-{suffix}"));
        }
    }

    private async Task HeadAsync()
    {
        var key = AnyOwned();
        using var request = new HttpRequestMessage(HttpMethod.Head, "/files/" + key.Name);
        var (response, _) = await SendAsync("head", request, 0, key.Current is null ? 404 : 200);
        using (response)
        {
            if (key.Current is { } current && (int)response.StatusCode == 200)
            {
                Expect(response.Content.Headers.ContentLength == current.Length, "head", key.Name, $"Content-Length {response.Content.Headers.ContentLength} for {current.Length}");
                Expect(response.Headers.ETag?.ToString() == current.ETag, "head", key.Name, $"ETag {response.Headers.ETag} for {current.ETag}");
            }
        }
    }

    private async Task DeleteAsync()
    {
        var key = AnyOwned();
        using var request = new HttpRequestMessage(HttpMethod.Delete, "/files/" + key.Name);
        int[] expected = key.Current is null ? [404] : [204];
        switch (_random.Next(4))
        {
            case 0:
                request.Headers.TryAddWithoutValidation("If-Match", "\"00000000000000000000000000000000\"");
                expected = key.Current is null ? [404, 412] : [412];
                break;
            case 1 when key.Current is not null:
                request.Headers.TryAddWithoutValidation("If-Match", key.Current.ETag);
                break;
        }

        var (response, _) = await SendAsync("delete", request, 0, expected);
        if ((int)response.StatusCode == 204)
        {
            key.Current = null;
        }

        response.Dispose();
    }

    /// <summary>Every page of this client's folder, in a random page size: exactly its present keys, sizes and ETags, in key order.</summary>
    private async Task ListAsync()
    {
        var listed = new List<(string Name, long Size, string? ETag)>();
        string? cursor = null;
        do
        {
            var query = "/files?prefix=" + Uri.EscapeDataString(Prefix + "/") + "&limit=" + Invariant($"{_random.Next(1, 20)}")
                + (cursor is null ? "" : "&cursor=" + Uri.EscapeDataString(cursor));
            using var request = new HttpRequestMessage(HttpMethod.Get, query);
            var (response, body) = await SendAsync("list", request, 0, 200);
            response.Dispose();
            if ((int)response.StatusCode != 200)
            {
                return;
            }

            using var page = System.Text.Json.JsonDocument.Parse(body);
            foreach (var item in page.RootElement.GetProperty("items").EnumerateArray())
            {
                listed.Add((item.GetProperty("name").GetString()!, item.GetProperty("size").GetInt64(), item.GetProperty(FilesApi.ETagProperty).GetString()));
            }

            cursor = page.RootElement.TryGetProperty("nextCursor", out var next) && next.ValueKind == System.Text.Json.JsonValueKind.String ? next.GetString() : null;
        }
        while (cursor is not null);

        var expected = Owned.Where(k => k.Current is not null).OrderBy(k => k.Name, StringComparer.Ordinal).Select(k => (k.Name, k.Current!.Length, (string?)k.Current.ETag)).ToList();
        Expect(listed.SequenceEqual(expected), "list", Prefix, $"listed [{string.Join(", ", listed)}], model [{string.Join(", ", expected)}]");
    }

    /// <summary>A tus upload of a new version in 1–4 pieces (the first sometimes in the POST), some with Upload-Checksum; the key holds it once the last piece is answered.</summary>
    private async Task TusUploadAsync()
    {
        var key = AnyOwned();
        var (version, bytes) = NewVersion();
        if (bytes.Length == 0)
        {
            return;
        }

        var (path, offset) = await TusCreateAsync("tus-upload", key, bytes, bytes.Length);
        if (path is null)
        {
            return;
        }

        while (offset < bytes.Length)
        {
            var end = Cut(offset, bytes.Length);
            if (!await TusPatchAsync("tus-upload", key, path, bytes, offset, end))
            {
                return;
            }

            offset = end;
        }

        // The last piece's 204 is the acknowledgement: the file is in place.
        key.Current = version;
        FinishedUploads.Add(TusApi.Id(path));
        using var head = TusRequest(HttpMethod.Head, path);
        var (response, _) = await SendAsync("tus-upload", head, 0, 200);
        using (response)
        {
            if ((int)response.StatusCode == 200)
            {
                ExpectHeader(response, "Upload-Offset", Invariant($"{bytes.Length}"), "tus-upload", key.Name);
                ExpectHeader(response, "Content-Location", "/files/" + key.Name, "tus-upload", key.Name);
            }
        }
    }

    /// <summary>A tus upload given up part-way and terminated: 204, then 404, and the key keeps what it had.</summary>
    private async Task TusAbandonAsync()
    {
        var key = AnyOwned();
        var (_, bytes) = NewVersion();
        if (bytes.Length < 2)
        {
            return;
        }

        var (path, offset) = await TusCreateAsync("tus-abandon", key, bytes, bytes.Length - 1);
        if (path is null)
        {
            return;
        }

        var stopAt = _random.Next(offset, bytes.Length - 1);
        while (offset < stopAt)
        {
            var end = Math.Min(stopAt, Cut(offset, bytes.Length));
            if (!await TusPatchAsync("tus-abandon", key, path, bytes, offset, end))
            {
                return;
            }

            offset = end;
        }

        using (var delete = TusRequest(HttpMethod.Delete, path))
        {
            var (response, _) = await SendAsync("tus-abandon", delete, 0, 204);
            response.Dispose();
        }

        using var head = TusRequest(HttpMethod.Head, path);
        var (gone, _) = await SendAsync("tus-abandon", head, 0, [404, 410]);
        gone.Dispose();
    }

    /// <summary>POST /tus/ for <paramref name="bytes"/>, sometimes with a first piece of at most <paramref name="firstAtMost"/> bytes (creation-with-upload); returns the upload's path and offset.</summary>
    private async Task<(string? Path, int Offset)> TusCreateAsync(string operation, OwnedKey key, byte[] bytes, int firstAtMost)
    {
        using var request = TusRequest(HttpMethod.Post, "/tus/");
        request.Headers.Add("Upload-Length", Invariant($"{bytes.Length}"));
        request.Headers.Add("Upload-Metadata", TusApi.Metadata(("filename", key.Name), ("filetype", "application/octet-stream")));
        var first = 0;
        if (_random.Next(3) == 0)
        {
            first = Cut(0, firstAtMost);
            request.Content = TusApi.Body(bytes[..first]);
        }

        var (response, _) = await SendAsync(operation, request, first, 201);
        using (response)
        {
            if ((int)response.StatusCode != 201)
            {
                return (null, 0);
            }

            var path = response.Headers.Location?.OriginalString;
            if (!Expect(path is not null && path.StartsWith("/tus/", StringComparison.Ordinal), operation, key.Name, $"Location {path}"))
            {
                return (null, 0);
            }

            if (first > 0)
            {
                ExpectHeader(response, "Upload-Offset", Invariant($"{first}"), operation, key.Name);
            }

            return (path, first);
        }
    }

    private async Task<bool> TusPatchAsync(string operation, OwnedKey key, string path, byte[] bytes, int from, int to)
    {
        using var request = TusRequest(HttpMethod.Patch, path);
        request.Content = TusApi.Body(bytes[from..to]);
        request.Headers.Add("Upload-Offset", Invariant($"{from}"));
        if (_random.Next(4) == 0)
        {
            request.Headers.Add("Upload-Checksum", "sha256 " + Convert.ToBase64String(SHA256.HashData(bytes.AsSpan(from, to - from))));
        }

        var (response, _) = await SendAsync(operation, request, to - from, 204);
        using (response)
        {
            return (int)response.StatusCode == 204
                && ExpectHeader(response, "Upload-Offset", Invariant($"{to}"), operation, key.Name);
        }
    }

    /// <summary>Where the next piece after <paramref name="offset"/> ends: the rest in at most about four pieces.</summary>
    private int Cut(int offset, int length) =>
        length - offset <= 1 || _random.Next(3) == 0 ? length : _random.Next(offset + 1, Math.Min(length, offset + 1 + length / 2));

    private static HttpRequestMessage TusRequest(HttpMethod method, string path)
    {
        var request = new HttpRequestMessage(method, path);
        request.Headers.Add("Tus-Resumable", TusApi.Version);
        return request;
    }

    /// <summary>HEAD for the current ETag, then PUT If-Match it (If-None-Match: * when absent): 201/204 when no one wrote in between, else 412.</summary>
    private async Task SharedWriteAsync()
    {
        var key = _shared[_random.Next(_shared.Count)];
        var seen = await SharedHeadAsync(key);
        if (seen is null)
        {
            return;
        }

        var (version, bytes) = NewVersion();
        key.Attempting(version);
        using var request = new HttpRequestMessage(HttpMethod.Put, "/files/" + key.Name) { Content = new ByteArrayContent(bytes) };
        request.Headers.TryAddWithoutValidation(seen == "" ? "If-None-Match" : "If-Match", seen == "" ? "*" : seen);
        var started = Stopwatch.GetTimestamp();
        var (response, _) = await SendAsync("shared-write", request, bytes.Length, [201, 204, 412]);
        var ended = Stopwatch.GetTimestamp();
        using (response)
        {
            if ((int)response.StatusCode is 201 or 204)
            {
                key.Acknowledged(version, started, ended);
                Expect(response.Headers.ETag?.ToString() == version.ETag, "shared-write", key.Name, $"ETag {response.Headers.ETag} for {version.ETag}");
            }
        }
    }

    /// <summary>GET of a key others are writing: 404, or a version someone sent, whole, with its own ETag.</summary>
    private async Task SharedReadAsync()
    {
        var key = _shared[_random.Next(_shared.Count)];
        using var request = new HttpRequestMessage(HttpMethod.Get, "/files/" + key.Name);
        var (response, body) = await SendAsync("shared-read", request, 0, [200, 404]);
        using (response)
        {
            if ((int)response.StatusCode == 200)
            {
                var hash = Payloads.Hash(body);
                Expect(response.Headers.ETag?.ToString() == "\"" + hash + "\"", "shared-read", key.Name, $"ETag {response.Headers.ETag} with the bytes of \"{hash}\"");
                Expect(key.WasAttempted(hash), "shared-read", key.Name, $"bytes \"{hash}\" no client sent");
            }
        }
    }

    private async Task SharedDeleteAsync()
    {
        var key = _shared[_random.Next(_shared.Count)];
        var seen = await SharedHeadAsync(key);
        if (string.IsNullOrEmpty(seen))
        {
            return;
        }

        using var request = new HttpRequestMessage(HttpMethod.Delete, "/files/" + key.Name);
        request.Headers.TryAddWithoutValidation("If-Match", seen);
        var started = Stopwatch.GetTimestamp();
        var (response, _) = await SendAsync("shared-delete", request, 0, [204, 404, 412]);
        var ended = Stopwatch.GetTimestamp();
        if ((int)response.StatusCode == 204)
        {
            key.Acknowledged(null, started, ended);
        }

        response.Dispose();
    }

    /// <summary>The shared key's ETag now: "" when absent, null when the HEAD itself failed.</summary>
    private async Task<string?> SharedHeadAsync(SharedKey key)
    {
        using var request = new HttpRequestMessage(HttpMethod.Head, "/files/" + key.Name);
        var (response, _) = await SendAsync("shared-head", request, 0, [200, 404]);
        using (response)
        {
            return (int)response.StatusCode switch
            {
                200 => response.Headers.ETag?.ToString(),
                404 => "",
                _ => null,
            };
        }
    }

    private Task<(HttpResponseMessage Response, byte[] Body)> SendAsync(string operation, HttpRequestMessage request, long bodyBytes, int expected) =>
        SendAsync(operation, request, bodyBytes, [expected]);

    /// <summary>
    /// Sends, reads the whole answer, counts both, and checks the status is one <paramref name="expected"/> allows;
    /// every error answer must be a problem document (RFC 9457), but for <see cref="IsBareRepresentationAnswer"/>.
    /// </summary>
    private async Task<(HttpResponseMessage Response, byte[] Body)> SendAsync(string operation, HttpRequestMessage request, long bodyBytes, int[] expected)
    {
        _counters.Sent(bodyBytes);
        var response = await _http.SendAsync(request);
        var body = await response.Content.ReadAsByteArrayAsync();
        var status = (int)response.StatusCode;
        _counters.Answered(operation, status, body.Length);
        var where = $"{request.Method} {request.RequestUri}";
        if (!expected.Contains(status))
        {
            _counters.Fault($"client {_index} {operation} {where}: {status}, the model allows {string.Join("/", expected)}: {Encoding.UTF8.GetString(body.AsSpan(0, Math.Min(body.Length, 300)))}");
        }
        else if (status >= 400 && !IsBareRepresentationAnswer(request.Method, status) && response.Content.Headers.ContentType?.MediaType != ProblemJson)
        {
            _counters.Fault($"client {_index} {operation} {where}: {status} as {response.Content.Headers.ContentType}, not {ProblemJson}");
        }

        return (response, body);
    }

    /// <summary>
    /// A HEAD carries no body, and a GET's 412 is the file responder's precondition answer (as StaticFiles gives
    /// it), not a refused input: both may come without a problem document.
    /// </summary>
    private static bool IsBareRepresentationAnswer(HttpMethod method, int status) =>
        method == HttpMethod.Head || (method == HttpMethod.Get && status == 412);

    private bool Expect(bool condition, string operation, string key, string what)
    {
        if (!condition)
        {
            _counters.Fault($"client {_index} {operation} {key}: {what}");
        }

        return condition;
    }

    private bool ExpectHeader(HttpResponseMessage response, string name, string expected, string operation, string key)
    {
        var actual = response.Headers.TryGetValues(name, out var values) || response.Content.Headers.TryGetValues(name, out values) ? string.Join(", ", values) : null;
        return Expect(actual == expected, operation, key, $"{name}: {actual ?? "(none)"}, expected {expected}");
    }

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
