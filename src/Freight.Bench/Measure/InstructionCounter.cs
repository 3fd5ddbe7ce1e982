using System.ComponentModel;
using System.Diagnostics;
using System.Globalization;
using System.Text;
using Freight.Bench.Peers;

namespace Freight.Bench.Measure;

/// <summary>
/// Counts the instructions one process (the embedded server) retires while a run lasts: <c>perf stat -e instructions</c>
/// attached to it for the run (Debian's linux-perf, from scripts/install-peers.sh). Where the machine cannot — no perf,
/// no hardware counter (many VMs say &lt;not supported&gt;), perf_event_paranoid forbids it (containers) — the probe says
/// why in <see cref="Unavailable"/> and every run goes uncounted; the bench never fails for it.
/// </summary>
public sealed class InstructionCounter
{
    /// <summary>
    /// perf's interval (-I, ms, its minimum): its first line says the counter is attached, so a run starts no more
    /// than ~10 ms after that; the intervals' counts add up to the run's, the last one printed when perf is stopped.
    /// </summary>
    private const int IntervalMilliseconds = 10;

    /// <summary>How long perf may take to attach (its first interval line) before a run is measured uncounted.</summary>
    private static readonly TimeSpan AttachLimit = TimeSpan.FromSeconds(2);

    private readonly string? _perf;

    private InstructionCounter(string? perf, int? processId, string? unavailable)
    {
        _perf = perf;
        ProcessId = processId;
        Unavailable = unavailable;
    }

    /// <summary>The process counted; null when there is none (--target).</summary>
    public int? ProcessId { get; }

    /// <summary>Why instructions cannot be counted here; null when they can.</summary>
    public string? Unavailable { get; }

    public bool Available => Unavailable is null;

    /// <summary>
    /// Whether perf can count <paramref name="processId"/>'s instructions: perf attached to it for 0.1 s, as every run
    /// will be, so a permission that allows counting a command but not attaching is found too.
    /// </summary>
    public static async Task<InstructionCounter> ProbeAsync(int? processId, CancellationToken cancellationToken)
    {
        if (processId is not { } pid)
        {
            return new(null, null, "no server process to attach to (a --target is measured from outside)");
        }

        if (!OperatingSystem.IsLinux() || Executables.Find("perf") is not { } perf)
        {
            return new(null, pid, "perf is not installed (scripts/install-peers.sh installs Debian's linux-perf)");
        }

        try
        {
            var result = await ChildProcess.RunAsync(perf, ["stat", "-x,", "-e", PerfStat.Event, "-p", pid.ToString(CultureInfo.InvariantCulture), "--", "sleep", "0.1"], null, TimeSpan.FromSeconds(10), cancellationToken);
            var reading = PerfStat.Parse(result.Stderr);
            return new(perf, pid, reading.Instructions is null ? reading.Unavailable : null);
        }
        catch (InvalidOperationException failure)
        {
            return new(null, pid, $"perf did not start: {failure.Message}");
        }
    }

    /// <summary>Attaches perf for one run; null when instructions cannot be counted here, or perf did not attach in time.</summary>
    public async Task<Session?> StartAsync(CancellationToken cancellationToken)
    {
        if (!Available || _perf is null || ProcessId is not { } pid)
        {
            return null;
        }

        var start = new ProcessStartInfo(_perf)
        {
            RedirectStandardError = true,
            RedirectStandardOutput = true,
            UseShellExecute = false,
        };
        foreach (var argument in new[] { "stat", "-x,", "-I", IntervalMilliseconds.ToString(CultureInfo.InvariantCulture), "-e", PerfStat.Event, "-p", pid.ToString(CultureInfo.InvariantCulture) })
        {
            start.ArgumentList.Add(argument);
        }

        Process? process;
        try
        {
            process = Process.Start(start);
        }
        catch (Win32Exception)
        {
            return null;
        }

        if (process is null)
        {
            return null;
        }

        var session = new Session(process);
        if (!await session.WaitAttachedAsync(AttachLimit, cancellationToken))
        {
            await session.StopAsync();
            return null;
        }

        return session;
    }

    /// <summary>perf attached to the server for one run: <see cref="StopAsync"/> ends it and reads its count.</summary>
    public sealed class Session
    {
        private readonly Process _process;
        private readonly StringBuilder _output = new();
        private readonly TaskCompletionSource _attached = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly Task _reading;

        internal Session(Process process)
        {
            _process = process;
            _reading = ReadAsync();
            _ = process.StandardOutput.ReadToEndAsync();
        }

        internal async Task<bool> WaitAttachedAsync(TimeSpan limit, CancellationToken cancellationToken)
        {
            var done = await Task.WhenAny(_attached.Task, _reading, Task.Delay(limit, cancellationToken));
            return done == _attached.Task;
        }

        /// <summary>Stops perf as Ctrl+C does (SIGINT: it prints the last interval and exits) and returns what it counted.</summary>
        public async Task<PerfReading> StopAsync()
        {
            using (_process)
            {
                if (!ChildProcess.HasExited(_process))
                {
                    // .NET sends only SIGKILL, after which perf prints nothing: kill(1) sends the SIGINT.
                    await ChildProcess.RunAsync("kill", ["-INT", _process.Id.ToString(CultureInfo.InvariantCulture)], null, TimeSpan.FromSeconds(5), CancellationToken.None);
                }

                if (!await ChildProcess.WaitForExitOrKillAsync(_process, TimeSpan.FromSeconds(5)))
                {
                    return PerfReading.None("perf stat did not stop on SIGINT");
                }

                await _reading;
                lock (_output)
                {
                    return PerfStat.Parse(_output.ToString());
                }
            }
        }

        private async Task ReadAsync()
        {
            while (await _process.StandardError.ReadLineAsync() is { } line)
            {
                lock (_output)
                {
                    _output.AppendLine(line);
                }

                _attached.TrySetResult();
            }
        }
    }
}
