using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Server.Kestrel.Core;

// Freight.Bench.Results (the result model) would hide ASP.NET Core's Results from code in Freight.Bench.Tests.
using HttpResults = Microsoft.AspNetCore.Http.Results;

namespace Freight.Bench.Tests.Load;

/// <summary>
/// A tiny real Kestrel server on 127.0.0.1:0 for the load engine's tests: /ok, /status/{code}, and
/// /stall, whose first request waits <see cref="StallDuration"/> (exactly one stall per server); for the
/// raw HTTP/1.1 transport: /chunked (<see cref="ChunkedBody"/> in several writes, no Content-Length),
/// /large (<see cref="LargeBodyBytes"/>), /close (<c>Connection: close</c>) and /missing (404 with a body);
/// for body verification: /pattern (<see cref="PatternBody"/> with Content-Length) and /pattern/chunked
/// (the same bytes, chunked), where <c>?wrongEvery=k</c> makes every k-th of the server's pattern
/// responses one of <see cref="WrongPatterns"/> in turn; for uploads: PUT or POST /sha256 answers the body's SHA-256 in hex.
/// </summary>
internal sealed class LoadTestServer : IAsyncDisposable
{
    public static readonly TimeSpan StallDuration = TimeSpan.FromSeconds(2);

    public const int LargeBodyBytes = 1024 * 1024;

    public static readonly string[] ChunkedParts = ["first,", "second,", new string('x', 5000), "last"];

    public const string MissingBody = "no such thing";

    /// <summary>Spans several 16 KiB receive buffers and is a multiple of none, so slices land at odd offsets.</summary>
    public const int PatternBytes = 100_003;

    /// <summary>A byte pattern with a period (251, prime) that no buffer size shares: a shifted slice never matches.</summary>
    public static readonly byte[] PatternBody = CreatePattern(PatternBytes);

    /// <summary>
    /// The wrong answers /pattern gives, in turn: first byte flipped, a middle byte flipped (in a later
    /// receive buffer), last byte flipped, one byte short, one byte too many.
    /// </summary>
    public static readonly byte[][] WrongPatterns =
    [
        Flip(0),
        Flip(PatternBytes / 2),
        Flip(PatternBytes - 1),
        PatternBody[..^1],
        [.. PatternBody, 0],
    ];

    private static readonly byte[] LargeBody = new byte[LargeBodyBytes];

    private readonly WebApplication _app;
    private int _stalled;
    private int _patternResponses;

    private LoadTestServer(WebApplication app) => _app = app;

    public Uri BaseAddress { get; private set; } = null!;

    public static async Task<LoadTestServer> StartAsync(HttpProtocols protocols = HttpProtocols.Http1)
    {
        var app = LoopbackApp.Create(protocols);
        var server = new LoadTestServer(app);

        app.MapGet("/ok", () => "ok");
        app.MapGet("/status/{code:int}", (int code) => HttpResults.StatusCode(code));
        app.MapGet("/stall", server.StallAsync);
        app.MapGet("/chunked", WriteChunkedAsync);
        app.MapGet("/large", () => HttpResults.Bytes(LargeBody, "application/octet-stream"));
        app.MapGet("/close", (HttpContext context) =>
        {
            context.Response.Headers.Connection = "close";
            return "closing";
        });
        app.MapGet("/missing", () => HttpResults.Text(MissingBody, statusCode: 404));
        app.MapGet("/pattern", (HttpContext context, int? wrongEvery) => server.WritePatternAsync(context, wrongEvery, chunked: false));
        app.MapGet("/pattern/chunked", (HttpContext context, int? wrongEvery) => server.WritePatternAsync(context, wrongEvery, chunked: true));
        app.MapMethods("/sha256", ["PUT", "POST"], HashBodyAsync);

        await app.StartAsync();
        server.BaseAddress = LoopbackApp.AddressOf(app);
        return server;
    }

    public Uri Url(string path) => new(BaseAddress, path);

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync();
        await _app.DisposeAsync();
    }

    public static long ChunkedBodyBytes => ChunkedParts.Sum(part => (long)part.Length);

    /// <summary>The request body's SHA-256 as lowercase hex: what the server received, byte for byte.</summary>
    private static async Task<string> HashBodyAsync(HttpRequest request) =>
        Convert.ToHexStringLower(await System.Security.Cryptography.SHA256.HashDataAsync(request.Body));

    private static async Task WriteChunkedAsync(HttpContext context)
    {
        // Each flushed write is its own chunk: no Content-Length, so Kestrel uses chunked coding.
        foreach (var part in ChunkedParts)
        {
            await context.Response.WriteAsync(part);
            await context.Response.Body.FlushAsync();
        }
    }

    private async Task WritePatternAsync(HttpContext context, int? wrongEvery, bool chunked)
    {
        var n = Interlocked.Increment(ref _patternResponses);
        var body = wrongEvery is { } every && n % every == 0 ? WrongPatterns[(n / every) % WrongPatterns.Length] : PatternBody;
        context.Response.ContentType = "application/octet-stream";
        if (!chunked)
        {
            context.Response.ContentLength = body.Length;
            await context.Response.Body.WriteAsync(body);
            return;
        }

        // Flushed 30,000-byte writes: chunks whose boundaries fall inside the client's receive buffers.
        for (var offset = 0; offset < body.Length; offset += 30_000)
        {
            await context.Response.Body.WriteAsync(body.AsMemory(offset, Math.Min(30_000, body.Length - offset)));
            await context.Response.Body.FlushAsync();
        }
    }

    private static byte[] CreatePattern(int length)
    {
        var bytes = new byte[length];
        for (var i = 0; i < length; i++)
        {
            bytes[i] = (byte)(i % 251);
        }

        return bytes;
    }

    private static byte[] Flip(int index)
    {
        var bytes = PatternBody.ToArray();
        bytes[index] ^= 0xFF;
        return bytes;
    }

    private async Task<string> StallAsync()
    {
        if (Interlocked.Exchange(ref _stalled, 1) == 0)
        {
            await Task.Delay(StallDuration);
        }

        return "ok";
    }
}
