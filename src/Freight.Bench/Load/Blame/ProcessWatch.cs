using Freight.Bench.Measure;

namespace Freight.Bench.Load.Blame;

/// <summary>
/// Reads another process's CPU time, resident memory and threads from <c>/proc</c> once a second while a
/// load run lasts (<c>--server-pid</c>): what can be learnt of any server, .NET or not. A pre-fork server is read with
/// its workers (<see cref="ServerListener.Choice.Workers"/>), each sample their figures summed: CPU seconds, resident
/// bytes (the pages they share counted in each, as <c>ps</c> does) and threads. A snapshot that cannot be read (a
/// process exited) is skipped, and <see cref="Exited"/> says so.
/// </summary>
public sealed class ProcessWatch(int processId, IReadOnlyList<int>? workers = null)
{
    private readonly List<ProcessStatSnapshot> _samples = [];
    private readonly int[] _members = [processId, .. workers ?? []];
    private long[]? _startTimes;

    // Each member's first and latest snapshot: what one process of a group used (MemberCpu).
    private ProcessStatSnapshot[]? _firstOfEach;
    private ProcessStatSnapshot[]? _lastOfEach;

    /// <summary>One process of a group over the samples: its CPU in cores (CPU seconds over wall seconds) and its most recent thread count.</summary>
    public sealed record MemberUse(int ProcessId, double CpuCores, int? Threads);

    public int ProcessId { get; } = processId;

    /// <summary>The snapshots taken, the first one at the start and the last at the stop; a group's summed, under <see cref="ProcessId"/>.</summary>
    public IReadOnlyList<ProcessStatSnapshot> Samples => _samples;

    /// <summary>
    /// Whether the process, readable when the run was set up, was gone at a sample (exited, a zombie, or its id taken by another):
    /// what it measured then says nothing of the run's end, and its clients were refused. For a group, any of its processes.
    /// </summary>
    public bool Exited => ExitedProcessId is not null;

    /// <summary>The first process found gone (<see cref="Exited"/>): the one given, or one of its workers.</summary>
    public int? ExitedProcessId { get; private set; }

    /// <summary>Whether the process can be read at all (exists, same user or root, Linux).</summary>
    public static bool CanRead(int processId) => ProcessStatSnapshot.Capture(processId) is not null;

    /// <summary>
    /// Each process of the group over the samples taken, in order (the one given first): a proxy's worker of one thread
    /// (nginx's) is saturated at one core however many the group may use. Empty before two samples.
    /// </summary>
    public IReadOnlyList<MemberUse> MemberCpu()
    {
        if (_firstOfEach is not { } first || _lastOfEach is not { } last || ReferenceEquals(first, last))
        {
            return [];
        }

        return [.. first.Select((start, i) =>
        {
            var wall = (last[i].Timestamp - start.Timestamp).TotalSeconds;
            return new MemberUse(_members[i], wall > 0 ? (last[i].CpuSeconds - start.CpuSeconds) / wall : 0, last[i].Threads);
        })];
    }

    /// <summary>Samples now and then every second until <paramref name="stop"/> is cancelled, and once more then.</summary>
    public async Task RunAsync(CancellationToken stop)
    {
        Take();
        using var timer = new PeriodicTimer(TimeSpan.FromSeconds(1));
        try
        {
            while (await timer.WaitForNextTickAsync(stop))
            {
                Take();
            }
        }
        catch (OperationCanceledException)
        {
        }

        Take();
    }

    private void Take()
    {
        var snapshots = new ProcessStatSnapshot[_members.Length];
        for (var i = 0; i < _members.Length; i++)
        {
            // Gone, or its id reused since the first sample: a process of the run no longer.
            if (ProcessStatSnapshot.Capture(_members[i]) is not { } snapshot || (_startTimes is { } starts && starts[i] != snapshot.StartTimeTicks))
            {
                ExitedProcessId ??= _members[i];
                return;
            }

            snapshots[i] = snapshot;
        }

        _startTimes ??= [.. snapshots.Select(s => s.StartTimeTicks)];
        _firstOfEach ??= snapshots;
        _lastOfEach = snapshots;
        _samples.Add(snapshots.Length == 1 ? snapshots[0] : Sum(snapshots));
    }

    /// <summary>
    /// A group's snapshots as one, under the first's id and start time: the cores it may use are the most any of them may
    /// (a worker pinned to one core, its master to all).
    /// </summary>
    private static ProcessStatSnapshot Sum(ProcessStatSnapshot[] snapshots) =>
        new(snapshots[0].ProcessId, snapshots[0].StartTimeTicks, snapshots.Sum(s => s.CpuSeconds), snapshots.Sum(s => s.WorkingSetBytes), snapshots[0].Timestamp)
        {
            Threads = snapshots.All(s => s.Threads is not null) ? snapshots.Sum(s => s.Threads!.Value) : null,
            AllowedCpus = snapshots.Max(s => s.AllowedCpus),
        };
}
