using System.Net;
using System.Text.Json;
using Freight.Server.Hosting;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// A running server whose data volume (a tmpfs of its own) turns read-only or fills up: <c>/healthz</c> says so
/// (Unhealthy, 503, so a balancer takes the node out), uploads get a clear problem logged once in one line without a
/// stack, and each change of the probe's state is logged once, however many probes ask.
/// </summary>
public sealed class StorageVolumeTests : IAsyncLifetime
{
    private const long VolumeSize = 8 * 1024 * 1024;
    private const string HealthCategory = "Freight.Server.Hosting.StorageHealthCheck";

    private readonly Tmpfs _tmpfs = new();
    private VolumeServer? _server;

    public Task InitializeAsync() => Task.CompletedTask;

    public async Task DisposeAsync()
    {
        _tmpfs.Remount(readOnly: false);
        if (_server is not null)
        {
            await _server.DisposeAsync();
        }

        _tmpfs.Dispose();
    }

    /// <summary>Mounts the tmpfs and starts serve with its data there, the write probe on every probe (interval 0).</summary>
    private async Task<VolumeServer> StartAsync(params string[] arguments)
    {
        _tmpfs.Mount(VolumeSize);
        _server = new VolumeServer(Path.Combine(_tmpfs.Path, "data"), arguments);
        await _server.InitializeAsync();
        _server.Server.App.Services.GetRequiredService<StorageHealthCheck>().WriteProbeInterval = TimeSpan.Zero;
        return _server;
    }

    [TmpfsFact]
    public async Task ReadOnlyVolume_HealthzUnhealthy_PutAndTusPost503StorageCannotBeWrittenLoggedOnceWithoutAStack()
    {
        // Under the default reserve (1 GiB) the small volume would be Degraded from the start.
        var server = await StartAsync("--Freight:Tus:MinFreeBytes", FilesApi.Invariant(1024 * 1024));
        Assert.Equal((HttpStatusCode.OK, "Healthy"), await HealthAsync(server));

        _tmpfs.Remount(readOnly: true);
        var mark = server.Logs.Count;

        Assert.Equal((HttpStatusCode.ServiceUnavailable, "Unhealthy"), await HealthAsync(server));
        using (var put = await FilesApi.PutAsync(server, "e.bin", FilesApi.Content(4096)))
        {
            await AssertUnwritableAsync(put);
        }

        using (var post = await TusPostAsync(server, 4096))
        {
            await AssertUnwritableAsync(post);
        }

        var refusals = server.Logs.Since(mark, LogLevel.Error).Where(log => log.Category == "Freight.AspNetCore.Errors.ProblemMiddleware").ToList();
        Assert.Equal(2, refusals.Count);
        Assert.All(refusals, log =>
        {
            Assert.Contains("answered 503, the storage cannot be written: Read-only file system", log.Message, StringComparison.Ordinal);
            // CapturedLogs appends an exception's type and message when one is attached: none here, so no stack either.
            Assert.DoesNotContain("Exception:", log.Message, StringComparison.Ordinal);
        });

        _tmpfs.Remount(readOnly: false);
        Assert.Equal((HttpStatusCode.OK, "Healthy"), await HealthAsync(server));
        using var again = await FilesApi.PutAsync(server, "e.bin", FilesApi.Content(4096));
        Assert.Equal(HttpStatusCode.Created, again.StatusCode);
    }

    /// <summary>
    /// Healthy, Degraded under tus's reserve, Unhealthy when not even 1 MiB is free (every upload would get 507), then
    /// Healthy again: three probes in each state, one line per change, none from ASP.NET Core's health checks.
    /// </summary>
    [TmpfsFact]
    public async Task VolumeFillingAndFreed_FullIsUnhealthy_EachChangeLoggedOnce()
    {
        var server = await StartAsync("--Freight:Tus:MinFreeBytes", FilesApi.Invariant(3 * 1024 * 1024));
        var mark = server.Logs.Count;
        var answers = new List<(HttpStatusCode, string)>();

        answers.AddRange(await HealthAsync(server, times: 3));
        _tmpfs.FillAllBut(2 * 1024 * 1024);
        answers.AddRange(await HealthAsync(server, times: 3));
        _tmpfs.Fill();
        answers.AddRange(await HealthAsync(server, times: 3));
        using (var put = await FilesApi.PutAsync(server, "full.bin", FilesApi.Content(64 * 1024)))
        {
            Assert.Equal(HttpStatusCode.InsufficientStorage, put.StatusCode);
        }

        _tmpfs.Free();
        answers.AddRange(await HealthAsync(server, times: 3));

        Assert.Equal(
            [.. Enumerable.Repeat((HttpStatusCode.OK, "Healthy"), 3), .. Enumerable.Repeat((HttpStatusCode.OK, "Degraded"), 3),
             .. Enumerable.Repeat((HttpStatusCode.ServiceUnavailable, "Unhealthy"), 3), .. Enumerable.Repeat((HttpStatusCode.OK, "Healthy"), 3)],
            answers);
        var logs = server.Logs.Since(mark, LogLevel.Trace);
        Assert.DoesNotContain(logs, log => log.Category.StartsWith("Microsoft.Extensions.Diagnostics.HealthChecks", StringComparison.Ordinal));
        var health = logs.Where(log => log.Category == HealthCategory).ToList();
        Assert.Equal([LogLevel.Warning, LogLevel.Error, LogLevel.Information], health.Select(log => log.Level));
        Assert.Contains("health: Degraded", health[0].Message, StringComparison.Ordinal);
        Assert.Contains("under Freight:Tus:MinFreeBytes", health[0].Message, StringComparison.Ordinal);
        Assert.Contains("health: Unhealthy", health[1].Message, StringComparison.Ordinal);
        Assert.Contains("under 1 MiB", health[1].Message, StringComparison.Ordinal);
        Assert.Equal("health: Healthy again (was Unhealthy)", health[2].Message);
    }

    private static async Task AssertUnwritableAsync(HttpResponseMessage response)
    {
        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.ServiceUnavailable);
        using var problem = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        Assert.Equal("Storage cannot be written", problem.RootElement.GetProperty("title").GetString());
        // The client reads no server path.
        Assert.DoesNotContain("/data/", problem.RootElement.GetProperty("detail").GetString(), StringComparison.Ordinal);
    }

    private static async Task<(HttpStatusCode, string)> HealthAsync(VolumeServer server)
    {
        using var response = await server.Client.GetAsync(new Uri(server.HttpAddress, "/healthz"));
        return (response.StatusCode, await response.Content.ReadAsStringAsync());
    }

    private static async Task<List<(HttpStatusCode, string)>> HealthAsync(VolumeServer server, int times)
    {
        var answers = new List<(HttpStatusCode, string)>();
        for (var i = 0; i < times; i++)
        {
            answers.Add(await HealthAsync(server));
        }

        return answers;
    }

    private static async Task<HttpResponseMessage> TusPostAsync(VolumeServer server, long length)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, new Uri(server.HttpAddress, "/tus/"));
        request.Headers.Add("Tus-Resumable", "1.0.0");
        request.Headers.Add("Upload-Length", FilesApi.Invariant(length));
        request.Content = new ByteArrayContent([]);
        return await server.Client.SendAsync(request);
    }

    /// <summary>serve with its data directory on the tmpfs, the lab off (its 1.1 MiB of files would not matter, but need not be there).</summary>
    private sealed class VolumeServer : FilesServer
    {
        public VolumeServer(string dataDirectory, string[] arguments)
            : base([.. arguments, "--Freight:Lab", "false"]) => DataDirectory = dataDirectory;
    }
}
