using System.Buffers;
using System.Security.Cryptography;
using Freight.Digests;
using Freight.Lab.Payload;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.WebUtilities;
using Microsoft.Net.Http.Headers;

// Freight.Bench.Results (the result model) would hide ASP.NET Core's Results from code in Freight.Bench.Tests.
using HttpResults = Microsoft.AspNetCore.Http.Results;

namespace Freight.Bench.Tests.Load.Command;

/// <summary>
/// A small minimal-API app on real Kestrel (127.0.0.1:0, HTTP/1.1 or h2c) for <c>freight load</c>'s tests, in
/// this (the test) process, so a test names it with <c>--server-pid</c> = this process:
/// <list type="bullet">
/// <item>GET and HEAD /payload/{bytes}: the deterministic payload streamed through a pooled buffer (never held whole);
/// <c>?digest=right|wrong</c> adds a Repr-Digest that is the payload's SHA-256, or not; <c>?pause=MS</c> waits that long
/// after each 64 KiB piece (10: at most 6.4 MiB/s, a slow server a long body outlasts a short run on);</item>
/// <item>GET /memory: <see cref="MemoryBodyBytes"/> from one shared array: the cheapest body to serve;</item>
/// <item>GET /burst: every third answer a 503 problem;</item>
/// <item>PUT /slow: reads the body with synchronous reads on the thread pool, waiting on a task after each
/// (sync-over-async): the blocked threads starve the pool;</item>
/// <item>POST /form: a multipart form whose file part must hash to the payload of <c>?size=</c>: 200, else 422.</item>
/// <item>GET /gc: a full blocking, compacting collection of a heap of two million live objects for every request: a
/// server that spends its time in GC, its work queued behind the pauses, no thread blocked.</item>
/// </list>
/// </summary>
internal sealed class LoadTargetServer : IAsyncDisposable
{
    public const int MemoryBodyBytes = 8 * 1024 * 1024;

    private static readonly byte[] MemoryBody = DeterministicPayload.Create(MemoryBodyBytes);

    private static long s_payloadsStarted;

    private readonly WebApplication _app;

    /// <summary>What /gc's collections mark and move: many small objects, as a real app's cache holds; this server's own, so collected after it.</summary>
    private readonly Lazy<object[]> _liveHeap = new(() =>
    {
        var objects = new object[2_000_000];
        for (var i = 0; i < objects.Length; i++)
        {
            objects[i] = new byte[8];
        }

        return objects;
    });

    private int _burst;

    private LoadTargetServer(WebApplication app) => _app = app;

    public Uri BaseAddress { get; private set; } = null!;

    public static string MemoryBodySha256 { get; } = Convert.ToHexStringLower(SHA256.HashData(MemoryBody));

    /// <summary>Starts the app speaking <paramref name="protocols"/> (h2c needs HTTP/2 alone: plain text has no ALPN).</summary>
    public static async Task<LoadTargetServer> StartAsync(HttpProtocols protocols = HttpProtocols.Http1)
    {
        var app = LoopbackApp.Create(protocols, limits => limits.MaxRequestBodySize = null);
        var server = new LoadTargetServer(app);

        app.MapMethods("/payload/{bytes:long}", ["GET", "HEAD"], WritePayloadAsync);
        app.MapGet("/memory", () => HttpResults.Bytes(MemoryBody, "application/octet-stream"));
        app.MapGet("/burst", server.Burst);
        app.MapPut("/slow", ReadSlowly);
        app.MapPut("/sink", DrainAsync);
        app.MapPost("/form", ReadFormAsync);
        app.MapGet("/gc", server.CollectEverything);

        await app.StartAsync();
        server.BaseAddress = LoopbackApp.AddressOf(app);
        return server;
    }

    public Uri Url(string pathAndQuery) => new(BaseAddress, pathAndQuery);

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync();
        await _app.DisposeAsync();
    }

    /// <summary>Waits (up to 30 s) until <paramref name="count"/> more /payload responses have begun than when called.</summary>
    public static async Task WaitForPayloadsAsync(long count)
    {
        var target = Interlocked.Read(ref s_payloadsStarted) + count;
        for (var waited = 0; waited < 3000 && Interlocked.Read(ref s_payloadsStarted) < target; waited++)
        {
            await Task.Delay(10);
        }
    }

    public static string PayloadSha256(long bytes)
    {
        using var hash = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        var buffer = new byte[64 * 1024];
        for (long offset = 0; offset < bytes; offset += buffer.Length)
        {
            var take = (int)Math.Min(buffer.Length, bytes - offset);
            DeterministicPayload.Fill(buffer.AsSpan(0, take), offset);
            hash.AppendData(buffer.AsSpan(0, take));
        }

        return Convert.ToHexStringLower(hash.GetHashAndReset());
    }

    private static async Task WritePayloadAsync(HttpContext context, long bytes, string? digest, int? pause)
    {
        Interlocked.Increment(ref s_payloadsStarted);
        context.Response.ContentType = "application/octet-stream";
        context.Response.ContentLength = bytes;
        if (digest is not null)
        {
            var sha = Convert.FromHexString(PayloadSha256(bytes));
            if (digest == "wrong")
            {
                sha[0] ^= 0xFF;
            }

            context.Response.Headers[DigestFields.ReprDigestHeader] = DigestFields.Format(DigestAlgorithm.Sha256, sha);
        }

        if (HttpMethods.IsHead(context.Request.Method))
        {
            return;
        }

        var buffer = ArrayPool<byte>.Shared.Rent(64 * 1024);
        try
        {
            for (long offset = 0; offset < bytes;)
            {
                var take = (int)Math.Min(buffer.Length, bytes - offset);
                DeterministicPayload.Fill(buffer.AsSpan(0, take), offset);
                await context.Response.Body.WriteAsync(buffer.AsMemory(0, take), context.RequestAborted);
                offset += take;
                if (pause is { } milliseconds)
                {
                    await Task.Delay(milliseconds, context.RequestAborted);
                }
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    private IResult CollectEverything()
    {
        GC.KeepAlive(_liveHeap.Value);
        GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
        return HttpResults.Text("collected");
    }

    private IResult Burst() =>
        Interlocked.Increment(ref _burst) % 3 == 0
            ? HttpResults.Problem("a burst of overload", statusCode: 503)
            : HttpResults.Text("ok");

    /// <summary>Reads the request body to its end as fast as it comes, and answers 201.</summary>
    private static async Task DrainAsync(HttpContext context)
    {
        while (true)
        {
            var result = await context.Request.BodyReader.ReadAsync();
            context.Request.BodyReader.AdvanceTo(result.Buffer.End);
            if (result.IsCompleted)
            {
                context.Response.StatusCode = StatusCodes.Status201Created;
                return;
            }
        }
    }

    private static IResult ReadSlowly(HttpContext context)
    {
        context.Features.GetRequiredFeature<IHttpBodyControlFeature>().AllowSynchronousIO = true;
        var buffer = new byte[16 * 1024];
        long total = 0;
        int read;
        while ((read = context.Request.Body.Read(buffer)) > 0)
        {
            total += read;

            // Sync-over-async: the thread is held while the timer runs, as study 3's synchronous action held it.
            Task.Delay(5).Wait();
        }

        return HttpResults.Text(total.ToString(System.Globalization.CultureInfo.InvariantCulture));
    }

    private static async Task<IResult> ReadFormAsync(HttpContext context, long size)
    {
        var boundary = HeaderUtilities.RemoveQuotes(MediaTypeHeaderValue.Parse(context.Request.ContentType).Boundary).Value!;
        var reader = new MultipartReader(boundary, context.Request.Body);
        string? found = null;
        while (await reader.ReadNextSectionAsync() is { } section)
        {
            var disposition = ContentDispositionHeaderValue.Parse(section.ContentDisposition);
            if (disposition.Name.Value == "upload" && disposition.FileName.Value == "data.bin")
            {
                using var hash = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
                var buffer = new byte[64 * 1024];
                int read;
                while ((read = await section.Body.ReadAsync(buffer)) > 0)
                {
                    hash.AppendData(buffer.AsSpan(0, read));
                }

                found = Convert.ToHexStringLower(hash.GetHashAndReset());
            }
        }

        return found == PayloadSha256(size) ? HttpResults.Text("ok") : HttpResults.Problem("the file part is not the payload", statusCode: 422);
    }
}
