using System.Collections.Concurrent;
using Freight.AspNetCore.Errors;
using Microsoft.Extensions.Logging;

namespace Freight.Server.Lab.Json;

/// <summary>
/// Named gates that hold <c>json/stj-stream</c>'s producer before its last record until a test opens them
/// (<c>POST /lab/json/gates/{name}</c>): proof that bytes left before the end existed. A gate may be opened
/// before or after the producer reaches it; a forgotten one lets the request go on after <see cref="MaxWait"/>.
/// </summary>
internal sealed partial class LabJsonGates(ILogger<LabJsonGates> logger)
{
    /// <summary>The longest a gate holds a request; tests open theirs within seconds.</summary>
    public static readonly TimeSpan MaxWait = TimeSpan.FromSeconds(30);

    // Tests use one or two at a time; the cap keeps stray POSTs from growing the table without bound.
    private const int MaxGates = 64;

    private readonly ConcurrentDictionary<string, Gate> _gates = new(StringComparer.Ordinal);

    /// <summary>Waits until <paramref name="name"/> is opened, or <see cref="MaxWait"/> passed.</summary>
    public async Task WaitAsync(string name, CancellationToken cancellationToken)
    {
        var gate = GetOrAdd(name);
        try
        {
            await gate.Opened.Task.WaitAsync(MaxWait, cancellationToken);
        }
        catch (TimeoutException)
        {
            LogForgotten(logger, name, MaxWait.TotalSeconds);
        }
        finally
        {
            // Only this gate: a later request may already have made a new one under the same name.
            _gates.TryRemove(new KeyValuePair<string, Gate>(name, gate));
        }
    }

    /// <summary>Opens <paramref name="name"/>, now or for the producer that reaches it next.</summary>
    public void Open(string name) => GetOrAdd(name).Opened.TrySetResult();

    private Gate GetOrAdd(string name)
    {
        if (_gates.TryGetValue(name, out var existing))
        {
            return existing;
        }

        if (_gates.Count >= MaxGates)
        {
            // Gates opened for producers that never came: nobody waits on them past MaxWait.
            var stale = Environment.TickCount64 - (long)MaxWait.TotalMilliseconds;
            foreach (var (key, gate) in _gates)
            {
                if (gate.CreatedAt < stale)
                {
                    _gates.TryRemove(new KeyValuePair<string, Gate>(key, gate));
                }
            }

            if (_gates.Count >= MaxGates)
            {
                throw LabRequest.Invalid($"At most {MaxGates} gates can be pending at once.");
            }
        }

        return _gates.GetOrAdd(name, static _ => new Gate());
    }

    [LoggerMessage(1, LogLevel.Warning, "JSON lab gate {Gate} was not opened within {Seconds} s; the response goes on")]
    private static partial void LogForgotten(ILogger logger, string gate, double seconds);

    private sealed class Gate
    {
        // Opening must not run the producer's continuation on the opener's thread.
        public TaskCompletionSource Opened { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public long CreatedAt { get; } = Environment.TickCount64;
    }
}
