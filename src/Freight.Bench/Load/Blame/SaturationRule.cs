using System.Globalization;
using Freight.Bench.Reports;

namespace Freight.Bench.Load.Blame;

/// <summary>
/// Names the side that limited a load run, from what was measured (docs/load.md, Blame). A run whose server process
/// (or proxy) exited while it ran, in which no request was answered or waited on (every one failed at once: refused, no such
/// host), or shorter than <see cref="MinimumRunSeconds"/>, gets none (<c>undetermined</c>, "no verdict: …"); otherwise:
/// <list type="number">
/// <item>the client used more than <see cref="Threshold"/> of one core → <c>client-bound</c>: the figure is a floor for the server;</item>
/// <item>the server used more than <see cref="Threshold"/> of the cores it may run on → <c>server-bound</c>; or, sharing all
/// the machine's cores with the client, the machine's cores were more than <see cref="Threshold"/> busy and the server
/// used most of that (<see cref="MachineSaturated"/>) → <c>server-bound</c>;</item>
/// <item>with <c>--through-proxy</c>, the proxy used more than <see cref="Threshold"/> of its cores, or a process of it of
/// one thread (an nginx worker) more than that of a core (<see cref="ProxySaturated"/>), or it used the most of a saturated
/// machine → <c>proxy-bound</c>;</item>
/// <item>over at least <see cref="MinimumQueueSamples"/> sampled seconds, the server's thread pool had work waiting
/// (queue length ≥ <see cref="Backlog"/>) in more than half of them, or its queue grew by <see cref="Backlog"/> items on
/// average from the first half of the run to the second → <c>server-bound</c>, though its CPU was free: by
/// garbage collection when the GC counters explain the waiting work (<see cref="GcExplains"/>), else by blocked
/// threads (synchronous I/O, sync-over-async, locks);</item>
/// <item>over at least <see cref="MinimumQueueSamples"/> seconds of runtime counters, GC paused the server for
/// <see cref="GcTimePercent"/> or more of the run → <c>server-bound</c> by garbage collection, though neither its CPU
/// nor its thread pool was saturated: while paused it answered nothing;</item>
/// <item>otherwise, with the server sampled, <c>neither</c>: the network or the requests' latency bound the run;</item>
/// <item>without a server to sample (no <c>--server-pid</c>), <c>undetermined</c>.</item>
/// </list>
/// The client is asked first: a saturated client cannot tell how much more the server would take. CPU is written
/// as a share of all the side's cores ("156 % of 200 %"), and a verdict reached while other processes took more than
/// <see cref="OthersWeak"/> of the machine says it is weak.
/// </summary>
public static class SaturationRule
{
    /// <summary>90 % of a core (client) or of the server's cores: what a busy 2-core machine still reaches when it is the bottleneck.</summary>
    public const double Threshold = 0.9;

    /// <summary>
    /// Queued work items that count as a backlog: a busy but healthy Kestrel (this project's test app at 4
    /// connections on a loaded 2-core machine) shows a lone item in an occasional second; a starved one shows many.
    /// </summary>
    public const double Backlog = 2;

    /// <summary>
    /// Seconds of queue samples a backlog needs, of which it must hold work in more than half. Over 4 seconds, half is 2
    /// and one second is a quarter of the evidence: identical runs at 2 connections read "held work in 2 of 4 seconds"
    /// once and 1 of 4 the next, server-bound then neither, and a GC pause or the start-up second (JIT, the pool
    /// injecting threads) is such a second. Over 5 a backlog needs 3 seconds of waiting work, more than start-up and
    /// one stray pause make. The counters come once a second from a session started with the run: a run of N seconds
    /// brings N + 1 at most, fewer on a loaded machine (5 from a 7 s run at a load average of 16); a run with too few
    /// is told to run longer instead of getting this verdict.
    /// </summary>
    public const int MinimumQueueSamples = 5;

    /// <summary>
    /// Share of the run the server was paused for GC from which GC, not blocked threads, explains waiting work: while
    /// the runtime collects, work queues up behind the pause with no thread blocked. A tenth: a healthy server pauses
    /// for a few percent at most (0 % measured for a small endpoint at 4 connections). Without a backlog the same share
    /// makes the server the limit: for a tenth of the run it answered nothing, its requests waiting in the sockets.
    /// </summary>
    public const double GcTimePercent = 10;

    /// <summary>
    /// Share of the machine's cores other processes used over the run above which a verdict is weak: past 10 %,
    /// the server could not have reached <see cref="Threshold"/> of the machine's cores even if it wanted them.
    /// </summary>
    public const double OthersWeak = 1 - Threshold;

    /// <summary>
    /// A verdict needs a run this long: CPU over a shorter run's wall time is mostly its start-up (JIT, the first
    /// connections), and read 'client-bound' for a 0.06 s PUT of a few bytes; the server is sampled once a second.
    /// </summary>
    public const double MinimumRunSeconds = 1;

    public static Saturation Judge(SaturationInputs inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);

        // Its last samples are of nothing, its clients were refused: no figure of the run says who limited it.
        if (inputs.ServerExited)
        {
            return new Saturation(SaturationVerdict.Undetermined, string.Create(CultureInfo.InvariantCulture,
                $"no verdict: the server process ({inputs.ServerProcessId}) exited during the run"));
        }

        if (inputs.ProxyExited)
        {
            return new Saturation(SaturationVerdict.Undetermined, string.Create(CultureInfo.InvariantCulture,
                $"no verdict: the proxy process ({inputs.ProxyProcessId}) exited during the run"));
        }

        // A server so starved it answered nothing still held the requests: its queue and CPU say so below.
        if (inputs.RequestsMeasured == 0)
        {
            return new Saturation(SaturationVerdict.Undetermined, "no verdict: no response measured");
        }

        if (inputs.RunSeconds < MinimumRunSeconds)
        {
            return new Saturation(SaturationVerdict.Undetermined, string.Create(CultureInfo.InvariantCulture,
                $"no verdict: the run lasted {inputs.RunSeconds:0.00} s; a verdict needs {MinimumRunSeconds} s or more"));
        }

        var verdict = Verdict(inputs);
        return verdict with { Reason = verdict.Reason + Others(inputs) };
    }

    private static Saturation Verdict(SaturationInputs inputs)
    {
        var client = Share(inputs.ClientCpuCores, inputs.ClientAllowedCpus);
        if (inputs.ClientCpuCores > Threshold)
        {
            return new Saturation(SaturationVerdict.ClientBound,
                $"client-bound — this figure is a floor for the server: the client used {client}, more than 90 % of one core");
        }

        if (inputs.ServerCpuCores is { } serverCores && inputs.ServerAllowedCpus is { } allowed and > 0 && serverCores / allowed > Threshold)
        {
            return new Saturation(SaturationVerdict.ServerBound,
                $"server-bound: the server used {Share(serverCores, allowed)}, more than 90 % of its {CountText.Format(allowed, "core")}");
        }

        if (ProxySaturated(inputs) is { } proxied)
        {
            return new Saturation(SaturationVerdict.ProxyBound, proxied);
        }

        if (MachineSaturated(inputs) is { } machine)
        {
            return machine;
        }

        var queue = QueueBacklog(inputs.ThreadPoolQueueLengths);
        if (queue is { Judged: true, Backlog: { } backlog })
        {
            return GcExplains(inputs.Gc, out var gc)
                ? new Saturation(SaturationVerdict.ServerBound, $"server-bound by garbage collection: its thread pool {backlog} while {gc}; its CPU was not saturated")
                : new Saturation(SaturationVerdict.ServerBound, $"server-bound: its thread pool {backlog} while its CPU was not saturated (threads blocked)");
        }

        if (inputs.ServerCpuCores is not { } server)
        {
            return new Saturation(SaturationVerdict.Undetermined,
                $"undetermined: the client used {client}; the server was not sampled (--server-pid)");
        }

        var cpu = $"client {client}, server {Share(server, inputs.ServerAllowedCpus ?? 1)}{ProxyShare(inputs)}";
        var paused = GcExplains(inputs.Gc, out var gcFigures);

        // The seconds of runtime counters: the queue length comes once a second, with the GC figures, from one session.
        // As for the queue, fewer seconds leave one long pause to decide.
        if (paused && inputs.ThreadPoolQueueLengths?.Count >= MinimumQueueSamples)
        {
            return new Saturation(SaturationVerdict.ServerBound,
                $"server-bound by garbage collection: {gcFigures}, answering nothing meanwhile; neither side's CPU was saturated: {cpu}");
        }

        // What a longer run might have judged: a backlog, GC pauses; said with the seconds it needs.
        var early = new List<string>();
        if (queue is { Judged: false, Backlog: { } backlogSoFar })
        {
            early.Add($"its thread pool {backlogSoFar}");
        }

        if (paused)
        {
            early.Add(gcFigures);
        }

        var tooFew = early.Count > 0
            ? $"; {string.Join(" and ", early)}, too few seconds to judge ({MinimumQueueSamples} needed: run {MinimumQueueSamples + 2} s or more)"
            : "";
        return new Saturation(SaturationVerdict.Neither, $"neither side saturated — network or latency bound: {cpu}{tooFew}");
    }

    /// <summary>
    /// The proxy's reason when it was saturated (<c>--through-proxy</c>): it used more than <see cref="Threshold"/> of the
    /// cores it may run on, or one of its processes of one thread (an nginx worker) used more than that of a core, all a
    /// thread can; else null. The server behind it was not: rule 2 asked first.
    /// </summary>
    internal static string? ProxySaturated(SaturationInputs inputs)
    {
        if (inputs.ProxyCpuCores is not { } proxy)
        {
            return null;
        }

        var behind = inputs.ServerCpuCores is { } server ? $"; the server behind it used {Share(server, inputs.ServerAllowedCpus ?? 1)}" : "";
        if (inputs.ProxyAllowedCpus is { } allowed and > 0 && proxy / allowed > Threshold)
        {
            return $"proxy-bound: the proxy used {Share(proxy, allowed)}, more than 90 % of its {CountText.Format(allowed, "core")}{behind}";
        }

        if (inputs.ProxyBusiestThread is { } busiest && busiest.CpuCores > Threshold)
        {
            return string.Create(CultureInfo.InvariantCulture,
                $"proxy-bound: its process {busiest.ProcessId}, of one thread, used {busiest.CpuCores * 100:0} % of a core, more than 90 % of all one thread can (the proxy {Share(proxy, inputs.ProxyAllowedCpus ?? 1)}){behind}");
        }

        return null;
    }

    /// <summary>
    /// The verdict when the machine's cores were saturated (client, server, proxy and other processes together above
    /// <see cref="Threshold"/> of them) and the server, or the proxy, used the most of them, sharing every core of the
    /// machine with the client; else null. On a 2-core machine the server cannot reach 90 % of both cores while the
    /// client takes a quarter of one: a 25 MB JSON response read server 156 %, client 25 % of 200 %, 'neither'.
    /// </summary>
    internal static Saturation? MachineSaturated(SaturationInputs inputs)
    {
        if (inputs.MachineCpus is not { } cpus || cpus <= 0)
        {
            return null;
        }

        var server = inputs.ServerCpuCores ?? 0;
        var proxy = inputs.ProxyCpuCores ?? 0;
        var others = inputs.OthersCpuCores ?? 0;
        var busy = inputs.ClientCpuCores + server + proxy + others;
        var (name, cores, allowed, verdict) = proxy > server
            ? ("proxy", proxy, inputs.ProxyAllowedCpus, SaturationVerdict.ProxyBound)
            : ("server", server, inputs.ServerAllowedCpus, SaturationVerdict.ServerBound);
        if ((name == "server" ? inputs.ServerCpuCores : inputs.ProxyCpuCores) is null || allowed != cpus
            || busy / cpus <= Threshold || cores <= inputs.ClientCpuCores || cores <= others)
        {
            return null;
        }

        var figures = new List<string> { $"{name} {Share(cores, cpus)}" };
        if (name == "proxy")
        {
            figures.Add($"server {Share(server, cpus)}");
        }

        figures.Add($"client {Share(inputs.ClientCpuCores, cpus)}");
        if (name == "server" && inputs.ProxyCpuCores is not null)
        {
            figures.Add($"proxy {Share(proxy, cpus)}");
        }

        // Others past OthersWeak are named by the verdict's own ending (Others).
        if (others > 0 && others / cpus <= OthersWeak)
        {
            figures.Add($"others {Share(others, cpus)}");
        }

        return new Saturation(verdict, $"{name}-bound: the machine's cores were saturated ({Share(busy, cpus)}), most by the {name}: {string.Join(", ", figures)}"
            + $"; sharing the cores with the client, the {name}'s CPU a response set the rate");
    }

    /// <summary>", proxy 40 % of 200 %" with <c>--through-proxy</c>, else nothing.</summary>
    private static string ProxyShare(SaturationInputs inputs) =>
        inputs.ProxyCpuCores is { } proxy ? $", proxy {Share(proxy, inputs.ProxyAllowedCpus ?? 1)}" : "";

    /// <summary>How the queue shows a backlog, or null; and whether there were enough seconds to judge it (<see cref="MinimumQueueSamples"/>).</summary>
    internal static (string? Backlog, bool Judged) QueueBacklog(IReadOnlyList<double>? lengths)
    {
        if (lengths is not { Count: > 0 } seconds)
        {
            return (null, false);
        }

        var judged = seconds.Count >= MinimumQueueSamples;
        var waiting = seconds.Count(length => length >= Backlog);
        if (waiting * 2 > seconds.Count)
        {
            return ($"queue held work in {waiting} of {seconds.Count} seconds", judged);
        }

        var half = seconds.Count / 2;
        double first = 0, second = 0;
        for (var i = 0; i < half; i++)
        {
            first += seconds[i];
            second += seconds[^(i + 1)];
        }

        return (half > 0 && second / half >= first / half + Backlog ? $"queue grew from {first / half:0.#} to {second / half:0.#} items on average" : null, judged);
    }

    /// <summary>
    /// Whether the GC counters explain waiting work better than blocked threads: GC paused the server for
    /// <see cref="GcTimePercent"/> or more of the run. The sentence names the figures (gen2 collections and the
    /// allocation rate beside the time).
    /// </summary>
    internal static bool GcExplains(GcPressure? gc, out string figures)
    {
        figures = "";
        if (gc?.TimeInGcPercent is not { } time || time < GcTimePercent)
        {
            return false;
        }

        var details = new List<string>();
        if (gc.Gen2Collections is { } gen2)
        {
            details.Add(CountText.Format(gen2, "gen2 collection"));
        }

        if (gc.AllocationBytesPerSecond is { } allocated)
        {
            details.Add(string.Create(CultureInfo.InvariantCulture, $"{allocated / (1 << 20):N0} MiB/s allocated"));
        }

        figures = string.Create(CultureInfo.InvariantCulture, $"GC paused it for {time:0} % of the run")
            + (details.Count > 0 ? $" ({string.Join(", ", details)})" : "");
        return true;
    }

    /// <summary>"; others used 80 % of 200 %: the verdict is weak" when processes besides the two sides took more than <see cref="OthersWeak"/> of the machine.</summary>
    private static string Others(SaturationInputs inputs) =>
        inputs.OthersCpuCores is { } others && inputs.MachineCpus is { } cpus and > 0 && others / cpus > OthersWeak
            ? $"; others used {Share(others, cpus)}: the verdict is weak"
            : "";

    /// <summary>CPU as a share of all the cores it could have: "156 % of 200 %" (a whole core is 100 %).</summary>
    public static string Share(double cores, int cpus) =>
        string.Create(CultureInfo.InvariantCulture, $"{cores * 100:0} % of {cpus * 100} %");
}

/// <summary>
/// What <see cref="SaturationRule"/> judges from: CPU in cores (CPU seconds over wall seconds; 1 = one whole core), and
/// how much the run measured: the requests a server answered (any status) or kept waiting (timed out, or in flight
/// when the run ended), and the run's wall seconds.
/// </summary>
public sealed record SaturationInputs(
    double ClientCpuCores, double? ServerCpuCores, int? ServerAllowedCpus, IReadOnlyList<double>? ThreadPoolQueueLengths, long RequestsMeasured, double RunSeconds)
{
    /// <summary>The cores the client may run on: its CPU is written as a share of them.</summary>
    public int ClientAllowedCpus { get; init; } = 1;

    public int? ServerProcessId { get; init; }

    /// <summary>The server process was gone at a sample during the run: no verdict.</summary>
    public bool ServerExited { get; init; }

    /// <summary>What the server's runtime counters say of its GC over the run (.NET servers only).</summary>
    public GcPressure? Gc { get; init; }

    /// <summary>CPU, in cores, that processes other than the client and the server used over the run (<c>/proc/stat</c> minus the two).</summary>
    public double? OthersCpuCores { get; init; }

    /// <summary>The machine's CPUs (<c>/proc/stat</c>): what <see cref="OthersCpuCores"/> is a share of.</summary>
    public int? MachineCpus { get; init; }

    /// <summary><c>--through-proxy</c>: the proxy's CPU in cores (its workers' summed); null without one.</summary>
    public double? ProxyCpuCores { get; init; }

    /// <summary>The cores the proxy may run on (the most any of its processes may).</summary>
    public int? ProxyAllowedCpus { get; init; }

    /// <summary>Of the proxy's processes of one thread (nginx's workers), the one that used the most CPU, in cores; null when none has one thread.</summary>
    public (int ProcessId, double CpuCores)? ProxyBusiestThread { get; init; }

    public int? ProxyProcessId { get; init; }

    /// <summary>One of the proxy's processes was gone at a sample during the run: no verdict.</summary>
    public bool ProxyExited { get; init; }
}

/// <summary>The server's GC over a run: the percent of it paused for GC, gen2 collections, bytes allocated a second.</summary>
public sealed record GcPressure(double? TimeInGcPercent, int? Gen2Collections, double? AllocationBytesPerSecond);

public enum SaturationVerdict
{
    Undetermined,
    Neither,
    ClientBound,
    ServerBound,

    /// <summary>The proxy in front of the server (<c>--through-proxy</c>) was saturated.</summary>
    ProxyBound,
}

/// <summary>The verdict and the sentence that explains it with the figures it came from.</summary>
public sealed record Saturation(SaturationVerdict Verdict, string Reason)
{
    /// <summary>The verdict as the result JSON writes it: <c>client-bound</c>, <c>server-bound</c>, <c>proxy-bound</c>, <c>neither</c>, <c>undetermined</c>.</summary>
    public string Id => Verdict switch
    {
        SaturationVerdict.ClientBound => "client-bound",
        SaturationVerdict.ServerBound => "server-bound",
        SaturationVerdict.ProxyBound => "proxy-bound",
        SaturationVerdict.Neither => "neither",
        _ => "undetermined",
    };
}
