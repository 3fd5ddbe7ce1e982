namespace Freight.Bench.Results;

/// <summary>Latency percentiles over every response of every run.</summary>
public sealed record Percentiles(double P50, double P75, double P90, double P99, double Max)
{
    /// <summary>p99.9, where the source measured it (load engine histograms).</summary>
    public double? P999 { get; init; }

    /// <summary>Mean latency, where the source measured it (load engine histograms, wrk).</summary>
    public double? Mean { get; init; }

    /// <summary>The p50 of each run on its own, in run order (where a suite keeps them): what a latency goal's interval is drawn from.</summary>
    public IReadOnlyList<double>? P50Runs { get; init; }

    /// <summary>The p99 of each run on its own, in run order (<c>freight load --runs</c>): what compare's interval of the p99 is drawn from.</summary>
    public IReadOnlyList<double>? P99Runs { get; init; }

    public static Percentiles? Of(IReadOnlyList<double> values)
    {
        if (values.Count == 0)
        {
            return null;
        }

        var sorted = values.Order().ToArray();
        double At(double q) => sorted[Math.Min(sorted.Length - 1, (int)Math.Ceiling(q * sorted.Length) - 1)];
        return new Percentiles(At(0.50), At(0.75), At(0.90), At(0.99), sorted[^1]);
    }
}
