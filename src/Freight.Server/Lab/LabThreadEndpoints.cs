using System.Globalization;
using Freight.Lab.Metrics;
using Freight.AspNetCore.Errors;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;

namespace Freight.Server.Lab;

/// <summary>
/// Study 3: actions that wait <c>?ms=</c> milliseconds (1000 by default) by blocking a thread-pool
/// thread or by awaiting, each answering the thread counts; and <c>/lab/metrics/samples</c>, the runtime
/// sampler's series the bench polls while it loads them (and every later scenario).
/// </summary>
public static class LabThreadEndpoints
{
    /// <summary>The study's delay.</summary>
    public const int DefaultDelayMs = 1000;

    /// <summary>Longest delay accepted: a minute, well past the study's ~57 s backed-up responses.</summary>
    public const int MaxDelayMs = 60_000;

    public static RouteGroupBuilder MapLabThreads(this RouteGroupBuilder lab)
    {
        ArgumentNullException.ThrowIfNull(lab);
        var threads = lab.MapGroup("/threads");

        // These three wait on purpose, the way the study's actions did; none takes the request's token, so all
        // three hold their request for the full delay whatever the client does.

        // The study's synchronous action: the thread-pool thread running the request sleeps.
        threads.MapGet("/sleep", (HttpRequest request) =>
        {
            var ms = DelayMs(request);
            Thread.Sleep(ms);
            return TypedResults.Ok(Counts(ms));
        });

        // The study's asynchronous action: no thread is held while waiting.
        threads.MapGet("/delay", async (HttpRequest request) =>
        {
            var ms = DelayMs(request);
            await Task.Delay(ms);
            return TypedResults.Ok(Counts(ms));
        });

        // Sync over async: blocks a pool thread like /sleep, and the delay's completion then needs a timer
        // callback to run before the blocked thread is released.
        threads.MapGet("/sync-over-async", (HttpRequest request) =>
        {
            var ms = DelayMs(request);
            // Blocking on the task is the variant being measured (the project forbids it everywhere else).
            Task.Delay(ms).Wait();
            return TypedResults.Ok(Counts(ms));
        });

        // Samples taken after ?after=SEQ (0 by default: all kept), oldest first. The sampler runs on its own thread,
        // so samples from a starved stretch are kept and served once the server answers again.
        lab.MapGet("/metrics/samples", (HttpRequest request, RuntimeSampler sampler) =>
            TypedResults.Ok(sampler.GetSamples(AfterSequence(request))));

        return threads;
    }

    private static LabThreadsResponse Counts(int delayMs) =>
        new(RuntimeSnapshot.Capture().ProcessThreads, ThreadPool.ThreadCount, delayMs);

    private static int DelayMs(HttpRequest request)
    {
        var text = request.Query["ms"].ToString();
        if (text.Length == 0)
        {
            return DefaultDelayMs;
        }

        return int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var ms) && ms <= MaxDelayMs
            ? ms
            : throw LabRequest.Invalid($"ms must be a whole number of milliseconds from 0 to {MaxDelayMs}.");
    }

    private static long AfterSequence(HttpRequest request)
    {
        var text = request.Query["after"].ToString();
        if (text.Length == 0)
        {
            return 0;
        }

        return long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var after)
            ? after
            : throw LabRequest.Invalid("after must be a sample sequence number, 0 or more.");
    }
}
