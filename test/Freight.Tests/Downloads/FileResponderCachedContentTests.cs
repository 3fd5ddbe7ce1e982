using System.Collections.Concurrent;
using System.Net;
using Freight.Downloads;
using Freight.Lab.Payload;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Logging;

namespace Freight.Tests.Downloads;

/// <summary>
/// Small files answered from <see cref="FileCache"/>'s copy in memory, through a real Kestrel on 127.0.0.1:0: the
/// response is started before the body is written, so Kestrel puts the body straight behind the head instead of
/// holding it in a buffer of its own and copying it again; the client gets the same bytes, whole or ranged.
/// </summary>
public sealed class FileResponderCachedContentTests : IAsyncLifetime
{
    private const int FileLength = 16 * 1024;

    private readonly TempDirectory _dir = new();
    private readonly byte[] _content = DeterministicPayload.Create(FileLength, seed: 9);
    private readonly FileCache _cache = new(new FileCacheOptions());
    private readonly ConcurrentQueue<bool> _startedWhenSent = new();
    private WebApplication? _app;
    private HttpClient? _client;

    private HttpClient Client => _client ?? throw new InvalidOperationException("Not initialized.");

    public async Task InitializeAsync()
    {
        var path = _dir.Combine("small.bin");
        await File.WriteAllBytesAsync(path, _content);

        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        _app = builder.Build();
        _app.MapGet("/small.bin", async context =>
        {
            await FileResponder.TrySendAsync(context, _cache, path);
            _startedWhenSent.Enqueue(context.Response.HasStarted);
        });
        await _app.StartAsync();
        _client = new HttpClient { BaseAddress = new Uri(_app.Urls.First()) };
    }

    public async Task DisposeAsync()
    {
        _client?.Dispose();
        if (_app is not null)
        {
            await _app.DisposeAsync();
        }

        _dir.Dispose();
    }

    [Fact]
    public async Task Get_CachedFile_StartedBeforeTheBodyAndTheFilesBytes()
    {
        // The first GET reads the file into the cache; the second is answered from memory.
        for (var i = 0; i < 2; i++)
        {
            using var response = await Client.GetAsync("/small.bin");

            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal(FileLength, response.Content.Headers.ContentLength);
            Assert.Equal(_content, await response.Content.ReadAsByteArrayAsync());
        }

        Assert.Equal([true, true], _startedWhenSent);
    }

    [Fact]
    public async Task Get_CachedFileRange_StartedBeforeTheBodyAndTheRangesBytes()
    {
        using (await Client.GetAsync("/small.bin"))
        {
        }

        using var request = new HttpRequestMessage(HttpMethod.Get, "/small.bin");
        request.Headers.Range = new System.Net.Http.Headers.RangeHeaderValue(100, 5_099);
        using var response = await Client.SendAsync(request);

        Assert.Equal(HttpStatusCode.PartialContent, response.StatusCode);
        Assert.Equal(_content.AsSpan(100, 5_000).ToArray(), await response.Content.ReadAsByteArrayAsync());
        Assert.Equal([true, true], _startedWhenSent);
    }
}
