using System.Globalization;
using System.Security.Cryptography;
using Freight.Digests;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;

namespace Freight.Bench.Tests.Client;

/// <summary>
/// A tiny real Kestrel server that answers get the ways freight serve never should: /wrong (a Repr-Digest
/// of other bytes), /none (no Repr-Digest), /malformed (an unreadable one); and /stall, whose full answer
/// sends the first <see cref="StallAfter"/> bytes and then waits until the client goes away, while a
/// request with <c>Range: bytes=N-</c> and the current If-Range gets the rest (206).
/// </summary>
public sealed class DigestTestServer : IAsyncLifetime
{
    public const int BodyBytes = 300_007;

    public const int StallAfter = 120_000;

    public const string ETag = "\"v1\"";

    public static readonly byte[] Body = TestFiles.Bytes(BodyBytes, seed: 42);

    private static readonly string BodyDigest = DigestFields.Format(DigestAlgorithm.Sha256, SHA256.HashData(Body));

    private WebApplication? _app;

    public Uri BaseAddress { get; private set; } = null!;

    public string LocalDirectory { get; } = Directory.CreateTempSubdirectory("freight-digest-local-").FullName;

    public string Url(string path) => new Uri(BaseAddress, path).ToString();

    public string Local(string name) => Path.Combine(LocalDirectory, name);

    public async Task InitializeAsync()
    {
        _app = LoopbackApp.Create();
        var otherDigest = DigestFields.Format(DigestAlgorithm.Sha256, SHA256.HashData(Body.AsSpan(1)));
        _app.MapGet("/wrong", (HttpContext context) => SendAsync(context, otherDigest));
        _app.MapGet("/none", (HttpContext context) => SendAsync(context, null));
        _app.MapGet("/malformed", (HttpContext context) => SendAsync(context, "sha-256=not-a-byte-sequence"));
        _app.MapGet("/stall", StallOrRestAsync);
        await _app.StartAsync();
        BaseAddress = LoopbackApp.AddressOf(_app);
    }

    public async Task DisposeAsync()
    {
        if (_app is not null)
        {
            await _app.StopAsync();
            await _app.DisposeAsync();
        }

        Directory.Delete(LocalDirectory, recursive: true);
    }

    private static async Task SendAsync(HttpContext context, string? reprDigest)
    {
        context.Response.ContentType = "application/octet-stream";
        context.Response.ContentLength = Body.Length;
        context.Response.Headers.ETag = ETag;
        if (reprDigest is not null)
        {
            context.Response.Headers[DigestFields.ReprDigestHeader] = reprDigest;
        }

        await context.Response.Body.WriteAsync(Body);
    }

    private static async Task StallOrRestAsync(HttpContext context)
    {
        var response = context.Response;
        response.ContentType = "application/octet-stream";
        response.Headers.ETag = ETag;
        response.Headers[DigestFields.ReprDigestHeader] = BodyDigest;
        var range = context.Request.Headers.Range.ToString();
        if (range.StartsWith("bytes=", StringComparison.Ordinal) && range.EndsWith('-') && context.Request.Headers.IfRange == ETag)
        {
            var from = int.Parse(range.AsSpan(6, range.Length - 7), CultureInfo.InvariantCulture);
            response.StatusCode = StatusCodes.Status206PartialContent;
            response.Headers.ContentRange = string.Create(CultureInfo.InvariantCulture, $"bytes {from}-{Body.Length - 1}/{Body.Length}");
            response.ContentLength = Body.Length - from;
            await response.Body.WriteAsync(Body.AsMemory(from));
            return;
        }

        response.ContentLength = Body.Length;
        await response.Body.WriteAsync(Body.AsMemory(0, StallAfter));
        await response.Body.FlushAsync();
        try
        {
            await Task.Delay(Timeout.InfiniteTimeSpan, context.RequestAborted);
        }
        catch (OperationCanceledException)
        {
            // The client gave up, as the test wants.
        }
    }
}
