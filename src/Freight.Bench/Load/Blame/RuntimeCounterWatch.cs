using System.Diagnostics.Tracing;
using Microsoft.Diagnostics.NETCore.Client;
using Microsoft.Diagnostics.Tracing;

namespace Freight.Bench.Load.Blame;

/// <summary>
/// A .NET server's runtime counters (the <c>System.Runtime</c> EventSource: GC, allocation rate, thread pool
/// threads and queue, lock contention, exceptions), streamed once a second over EventPipe through the
/// process's diagnostics port, as dotnet-counters reads them: no change to the server, no endpoint of its own.
/// </summary>
public sealed class RuntimeCounterWatch : IAsyncDisposable
{
    private const string Provider = "System.Runtime";

    /// <summary>Seconds between two polls of the counters (EventCounterIntervalSec).</summary>
    public const int IntervalSeconds = 1;

    /// <summary>
    /// How long after a run's end the session is kept open: the poll that closes the second the run ended in is
    /// due within <see cref="IntervalSeconds"/>; the rest is slack for the server's timer on a busy machine.
    /// </summary>
    public static readonly TimeSpan ClosingPollWait = TimeSpan.FromSeconds(IntervalSeconds + 0.5);

    private readonly EventPipeSession _session;
    private readonly EventPipeEventSource _source;
    private readonly Task _processing;
    private readonly Lock _gate = new();
    private readonly List<RuntimeCounterValue> _values = [];
    private Task? _stopping;

    private RuntimeCounterWatch(EventPipeSession session)
    {
        _session = session;
        _source = new EventPipeEventSource(session.EventStream);
        _source.Dynamic.All += OnEvent;

        // Process() blocks, reading the stream until the session stops: a thread of its own, not the pool's.
        _processing = Task.Factory.StartNew(_source.Process, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
    }

    /// <summary>The values received so far, in arrival order.</summary>
    public IReadOnlyList<RuntimeCounterValue> Values
    {
        get
        {
            lock (_gate)
            {
                return [.. _values];
            }
        }
    }

    /// <summary>
    /// Starts a session with process <paramref name="processId"/>; null, with the reason, when it is not a .NET
    /// process with a diagnostics port this user can reach (not .NET, DOTNET_EnableDiagnostics=0, another user).
    /// </summary>
    public static RuntimeCounterWatch? TryStart(int processId, out string? reason)
    {
        reason = null;
        if (!DiagnosticsClient.GetPublishedProcesses().Contains(processId) || !LoadsTheRuntime(processId))
        {
            reason = "not a .NET process with a diagnostics port (runtime counters need one)";
            return null;
        }

        try
        {
            var client = new DiagnosticsClient(processId);
            var provider = new EventPipeProvider(Provider, EventLevel.Informational, 0, new Dictionary<string, string>
            {
                ["EventCounterIntervalSec"] = IntervalSeconds.ToString(System.Globalization.CultureInfo.InvariantCulture),
            });
            return new RuntimeCounterWatch(client.StartEventPipeSession(provider, requestRundown: false));
        }
        catch (Exception e) when (e is ServerNotAvailableException or UnsupportedCommandException or ServerErrorException or IOException or TimeoutException or UnauthorizedAccessException)
        {
            reason = $"EventPipe session refused: {e.Message}";
            return null;
        }
    }

    /// <summary>
    /// Whether process <paramref name="processId"/> has the .NET runtime mapped (Linux: /proc/PID/maps). The published
    /// list is the diagnostics sockets in the temp directory, named by process id: one left behind by a killed .NET
    /// process names a live one that reused its id (nginx in a test, among 800 stale sockets on a busy machine), and a
    /// session with it is refused. Without /proc, or when the maps cannot be read, the socket's word is taken.
    /// </summary>
    private static bool LoadsTheRuntime(int processId)
    {
        try
        {
            return File.ReadLines($"/proc/{processId}/maps").Any(line => line.Contains("libcoreclr", StringComparison.Ordinal));
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return true;
        }
    }

    /// <summary>
    /// Every value the server sent up to the poll after <paramref name="end"/>: waits until that poll is due
    /// (<see cref="ClosingPollWait"/>, less when <paramref name="cancellationToken"/> is cancelled: a Ctrl+C does not
    /// wait), then stops the session. Stopping is what delivers the last seconds: the runtime buffers the stream,
    /// and values read while it runs lack the polls of the last second or two (a 4 s run had 3 of its 5).
    /// </summary>
    public async Task<IReadOnlyList<RuntimeCounterValue>> StopAfterAsync(DateTimeOffset end, CancellationToken cancellationToken)
    {
        var wait = end + ClosingPollWait - DateTimeOffset.UtcNow;
        if (wait > TimeSpan.Zero)
        {
            try
            {
                await Task.Delay(wait, cancellationToken);
            }
            catch (OperationCanceledException)
            {
                // Interrupted: what has come stands, and the summary says how much of the run it covers.
            }
        }

        await StopAsync();
        return Values;
    }

    public async ValueTask DisposeAsync()
    {
        await StopAsync();
        _source.Dispose();
        _session.Dispose();
    }

    private Task StopAsync()
    {
        lock (_gate)
        {
            return _stopping ??= StopSessionAsync();
        }
    }

    private async Task StopSessionAsync()
    {
        try
        {
            await _session.StopAsync(CancellationToken.None);
        }
        catch (Exception e) when (e is ServerNotAvailableException or ServerErrorException or IOException or TimeoutException)
        {
            // The server exited first: the stream has ended anyway.
        }

        // The stream ends once the runtime has flushed the session's buffers: every value sent is then in _values.
        await _processing.WaitAsync(TimeSpan.FromSeconds(5)).ContinueWith(_ => { }, TaskScheduler.Default);
    }

    // EventCounters payload: { Payload: { Name, Mean | Increment, CounterType, … } } (dotnet-counters reads it so).
    private void OnEvent(TraceEvent data)
    {
        if (data.EventName != "EventCounters" || data.PayloadValue(0) is not IDictionary<string, object> outer
            || !outer.TryGetValue("Payload", out var inner) || inner is not IDictionary<string, object> fields
            || fields.TryGetValue("Name", out var name) is false || name is not string counter)
        {
            return;
        }

        var value = fields.TryGetValue("Increment", out var increment) ? increment
            : fields.TryGetValue("Mean", out var mean) ? mean
            : null;
        if (value is null)
        {
            return;
        }

        lock (_gate)
        {
            _values.Add(new RuntimeCounterValue(new DateTimeOffset(data.TimeStamp.ToUniversalTime(), TimeSpan.Zero), counter, Convert.ToDouble(value, System.Globalization.CultureInfo.InvariantCulture)));
        }
    }
}

/// <summary>One counter's value for one interval: a mean or level (queue length, heap size) or the interval's increment (GCs, allocated bytes).</summary>
public readonly record struct RuntimeCounterValue(DateTimeOffset Timestamp, string Name, double Value);
