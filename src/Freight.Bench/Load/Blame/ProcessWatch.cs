using Freight.Bench.Measure;

namespace Freight.Bench.Load.Blame;

/// <summary>
/// Reads another process's CPU time, resident memory and threads from <c>/proc</c> once a second while a
/// load run lasts (<c>--server-pid</c>): what can be learnt of any server, .NET or not. A snapshot that cannot
/// be read (the process exited) is skipped, and <see cref="Exited"/> says so.
/// </summary>
public sealed class ProcessWatch(int processId)
{
    private readonly List<ProcessStatSnapshot> _samples = [];

    public int ProcessId { get; } = processId;

    /// <summary>The snapshots taken, the first one at the start and the last at the stop.</summary>
    public IReadOnlyList<ProcessStatSnapshot> Samples => _samples;

    /// <summary>
    /// Whether the process, readable when the run was set up, was gone at a sample (exited, a zombie, or its id taken by another):
    /// what it measured then says nothing of the run's end, and its clients were refused.
    /// </summary>
    public bool Exited { get; private set; }

    /// <summary>Whether the process can be read at all (exists, same user or root, Linux).</summary>
    public static bool CanRead(int processId) => ProcessStatSnapshot.Capture(processId) is not null;

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
        if (ProcessStatSnapshot.Capture(ProcessId) is { } snapshot
            && (_samples.Count == 0 || _samples[0].StartTimeTicks == snapshot.StartTimeTicks))
        {
            _samples.Add(snapshot);
        }
        else
        {
            Exited = true;
        }
    }
}
