using Freight.Bench.Measure;

namespace Freight.Bench.Load.Blame;

/// <summary>
/// Reads another process's CPU time, resident memory and threads from <c>/proc</c> once a second while a
/// load run lasts (<c>--server-pid</c>): what can be learnt of any server, .NET or not. A pre-fork server is read with
/// its workers (<see cref="ServerListener.Choice.Workers"/>), each sample their figures summed: CPU seconds, resident
/// bytes (the pages they share counted in each, as <c>ps</c> does) and threads. Workers that hold no listening socket (a
/// Node cluster's) are found while sampling (<see cref="WorkerSearch"/>): its candidates are read from the first sample on,
/// and one seen holding a connection on the port at any sample joins the group from that first sample, so the CPU it
/// spent before it was seen is not lost; one never seen so is left out. A snapshot that cannot be read (a process
/// exited) is skipped, and <see cref="Exited"/> says so.
/// </summary>
public sealed class ProcessWatch(int processId, IReadOnlyList<int>? workers = null, WorkerSearch? search = null)
{
    // Each sample's snapshots by process: the group's, and the candidates' not yet seen holding a connection.
    private readonly List<Dictionary<int, ProcessStatSnapshot>> _taken = [];
    private readonly List<int> _members = [processId, .. workers ?? []];
    private readonly List<int> _candidates = [.. search?.Candidates ?? []];
    private readonly List<int> _found = [];
    private readonly Dictionary<int, long> _startTimes = [];

    /// <summary>One process of a group over the samples: its CPU in cores (CPU seconds over wall seconds) and its most recent thread count.</summary>
    public sealed record MemberUse(int ProcessId, double CpuCores, int? Threads);

    public int ProcessId { get; } = processId;

    /// <summary>
    /// The snapshots taken, the first one at the start and the last at the stop; a group's summed, under <see cref="ProcessId"/>,
    /// over the processes it ended the run with (<see cref="Workers"/>, those found during it included).
    /// </summary>
    public IReadOnlyList<ProcessStatSnapshot> Samples => [.. _taken.Select(Sum)];

    /// <summary>The processes read with <see cref="ProcessId"/>, in order: the workers given, then those found by their connections.</summary>
    public IReadOnlyList<int> Workers => _members[1..];

    /// <summary>The workers found during the run, holding connections on the port (<see cref="WorkerSearch"/>), in the order found.</summary>
    public IReadOnlyList<int> FoundWorkers => _found;

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
        if (_taken.Count < 2)
        {
            return [];
        }

        var (first, last) = (_taken[0], _taken[^1]);
        return [.. _members.Select(member =>
        {
            var (start, end) = (first[member], last[member]);
            var wall = (end.Timestamp - start.Timestamp).TotalSeconds;
            return new MemberUse(member, wall > 0 ? (end.CpuSeconds - start.CpuSeconds) / wall : 0, end.Threads);
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
        // A candidate holding a connection on the port is a worker: for the rest of the run, from the first sample.
        if (search is not null && _candidates.Count > 0)
        {
            foreach (var worker in ServerListener.HoldingConnections(_candidates, search.Ports))
            {
                _candidates.Remove(worker);
                _members.Add(worker);
                _found.Add(worker);
            }
        }

        var snapshots = new Dictionary<int, ProcessStatSnapshot>(_members.Count + _candidates.Count);
        foreach (var member in _members)
        {
            if (Capture(member) is not { } snapshot)
            {
                ExitedProcessId ??= member;
                return;
            }

            snapshots[member] = snapshot;
        }

        // A candidate gone before it held a connection served nothing seen: no longer one. Kept, every sample has each
        // candidate's snapshot, so one found later has them all.
        for (var i = _candidates.Count - 1; i >= 0; i--)
        {
            if (Capture(_candidates[i]) is { } snapshot)
            {
                snapshots[_candidates[i]] = snapshot;
            }
            else
            {
                _candidates.RemoveAt(i);
            }
        }

        _taken.Add(snapshots);
    }

    /// <summary>The process's snapshot now; null when it is gone, or its id was reused since its first sample.</summary>
    private ProcessStatSnapshot? Capture(int process)
    {
        if (ProcessStatSnapshot.Capture(process) is not { } snapshot
            || (_startTimes.TryGetValue(process, out var started) && started != snapshot.StartTimeTicks))
        {
            return null;
        }

        _startTimes.TryAdd(process, snapshot.StartTimeTicks);
        return snapshot;
    }

    /// <summary>
    /// A sample of the group as one, under the first's id and start time: the cores it may use are the most any of them may
    /// (a worker pinned to one core, its master to all).
    /// </summary>
    private ProcessStatSnapshot Sum(Dictionary<int, ProcessStatSnapshot> taken)
    {
        if (_members.Count == 1)
        {
            return taken[_members[0]];
        }

        var snapshots = _members.Select(member => taken[member]).ToArray();
        return new(snapshots[0].ProcessId, snapshots[0].StartTimeTicks, snapshots.Sum(s => s.CpuSeconds), snapshots.Sum(s => s.WorkingSetBytes), snapshots[0].Timestamp)
        {
            Threads = snapshots.All(s => s.Threads is not null) ? snapshots.Sum(s => s.Threads!.Value) : null,
            AllowedCpus = snapshots.Max(s => s.AllowedCpus),
        };
    }
}
