using System.Globalization;
using Freight.Bench.Reports;

namespace Freight.Bench.Load.Blame;

/// <summary>
/// Names the side that limited a load run, from what was measured (docs/load.md, Blame). A run in which no request
/// was answered or waited on (every one failed at once: refused, no such host), or shorter than
/// <see cref="MinimumRunSeconds"/>, gets none (<c>undetermined</c>, "no verdict: …"); otherwise:
/// <list type="number">
/// <item>the client used more than <see cref="Threshold"/> of one core → <c>client-bound</c>: the figure is a floor for the server;</item>
/// <item>the server used more than <see cref="Threshold"/> of the cores it may run on → <c>server-bound</c>;</item>
/// <item>over at least <see cref="MinimumQueueSamples"/> seconds, the server's thread pool had work waiting (queue
/// length ≥ <see cref="Backlog"/>) in at least half of them, or its queue grew by <see cref="Backlog"/> items on average
/// from the first half of the run to the second → <c>server-bound</c> (threads blocked: synchronous I/O,
/// sync-over-async, locks), though its CPU was free;</item>
/// <item>otherwise, with the server sampled, <c>neither</c>: the network or the requests' latency bound the run;</item>
/// <item>without a server to sample (no <c>--server-pid</c>), <c>undetermined</c>.</item>
/// </list>
/// The client is asked first: a saturated client cannot tell how much more the server would take.
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

    /// <summary>Seconds of queue samples a backlog needs: one or two seconds are start-up, not a trend.</summary>
    public const int MinimumQueueSamples = 3;

    /// <summary>
    /// A verdict needs a run this long: CPU over a shorter run's wall time is mostly its start-up (JIT, the first
    /// connections), and read 'client-bound' for a 0.06 s PUT of a few bytes; the server is sampled once a second.
    /// </summary>
    public const double MinimumRunSeconds = 1;

    public static Saturation Judge(SaturationInputs inputs)
    {
        ArgumentNullException.ThrowIfNull(inputs);
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
        if (inputs.ClientCpuCores > Threshold)
        {
            return new Saturation(SaturationVerdict.ClientBound,
                $"client-bound — this figure is a floor for the server: the client used {Percent(inputs.ClientCpuCores)} of a core (> 90 %)");
        }

        if (inputs.ServerCpuCores is { } serverCores && inputs.ServerAllowedCpus is { } allowed and > 0 && serverCores / allowed > Threshold)
        {
            return new Saturation(SaturationVerdict.ServerBound,
                $"server-bound: the server used {Percent(serverCores)} of a core, > 90 % of its {CountText.Format(allowed, "core")}");
        }

        if (QueueBacklog(inputs.ThreadPoolQueueLengths) is { } backlog)
        {
            return new Saturation(SaturationVerdict.ServerBound, $"server-bound: its thread pool {backlog} while its CPU was not saturated (threads blocked)");
        }

        return inputs.ServerCpuCores is null
            ? new Saturation(SaturationVerdict.Undetermined,
                $"undetermined: the client used {Percent(inputs.ClientCpuCores)} of a core; the server was not sampled (--server-pid)")
            : new Saturation(SaturationVerdict.Neither,
                $"neither side saturated — network or latency bound: client {Percent(inputs.ClientCpuCores)} of a core, server {Percent(inputs.ServerCpuCores.Value)}");
    }

    /// <summary>How the queue shows a backlog, or null: waiting work in half the seconds or more, or a queue that grew.</summary>
    internal static string? QueueBacklog(IReadOnlyList<double>? lengths)
    {
        if (lengths is null || lengths.Count < MinimumQueueSamples)
        {
            return null;
        }

        var waiting = 0;
        foreach (var length in lengths)
        {
            if (length >= Backlog)
            {
                waiting++;
            }
        }

        if (waiting * 2 >= lengths.Count)
        {
            return $"queue held work in {waiting} of {lengths.Count} seconds";
        }

        var half = lengths.Count / 2;
        double first = 0, second = 0;
        for (var i = 0; i < half; i++)
        {
            first += lengths[i];
            second += lengths[lengths.Count - 1 - i];
        }

        return second / half >= first / half + Backlog ? $"queue grew from {first / half:0.#} to {second / half:0.#} items on average" : null;
    }

    private static string Percent(double cores) => (cores * 100).ToString("0", CultureInfo.InvariantCulture) + " %";
}

/// <summary>
/// What <see cref="SaturationRule"/> judges from: CPU in cores (CPU seconds over wall seconds; 1 = one whole core), and
/// how much the run measured: the requests a server answered (any status) or kept waiting (timed out, or in flight
/// when the run ended), and the run's wall seconds.
/// </summary>
public sealed record SaturationInputs(
    double ClientCpuCores, double? ServerCpuCores, int? ServerAllowedCpus, IReadOnlyList<double>? ThreadPoolQueueLengths, long RequestsMeasured, double RunSeconds);

public enum SaturationVerdict
{
    Undetermined,
    Neither,
    ClientBound,
    ServerBound,
}

/// <summary>The verdict and the sentence that explains it with the figures it came from.</summary>
public sealed record Saturation(SaturationVerdict Verdict, string Reason)
{
    /// <summary>The verdict as the result JSON writes it: <c>client-bound</c>, <c>server-bound</c>, <c>neither</c>, <c>undetermined</c>.</summary>
    public string Id => Verdict switch
    {
        SaturationVerdict.ClientBound => "client-bound",
        SaturationVerdict.ServerBound => "server-bound",
        SaturationVerdict.Neither => "neither",
        _ => "undetermined",
    };
}
