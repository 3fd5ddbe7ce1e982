using Freight.Bench.Reports;
using Freight.Bench.Results;
using Freight.Bench.Verdicts;

namespace Freight.Bench.Suites.Micro;

/// <summary>Issue 19's parser goals, and Freight's parser beside ASP.NET Core's on every body, from one micro run.</summary>
public static class MicroRatios
{
    private const double BytesPerGigabyte = 1e9;

    public static IEnumerable<RatioResult> Compute(IReadOnlyList<ScenarioResult> results)
    {
        ArgumentNullException.ThrowIfNull(results);
        Summary? Speed(string benchmark, string input) =>
            results.FirstOrDefault(r => r.Scenario == MicroSuite.Id(benchmark, input) && r.Verified)?.BytesPerSecond;

        // A one-sample interval: each iteration's bytes/s paired with the constant 10⁹ is the log-t interval of GB/s.
        var normal = Speed(MicroSuite.FreightParser, MicroSuite.NormalBody);
        var goal = new RatioResult(
            $"{MicroSuite.FreightParser} {MicroSuite.NormalBody} GB/s a core",
            MicroSuite.Id(MicroSuite.FreightParser, MicroSuite.NormalBody),
            "10⁹ bytes/s",
            normal?.Median / BytesPerGigabyte,
            Goal: MicroSuite.ParserGoalGigabytesPerSecond,
            Unit: " GB/s");
        yield return normal?.Samples is { } samples ? goal.WithRuns(samples, [.. samples.Select(_ => BytesPerGigabyte)]) : goal;

        // Same bytes, so time ÷ time is the normal body's speed ÷ the hostile one's. The cases ran one after the
        // other, not interleaved: their iterations are not pairs, so the interval is the unpaired bootstrap.
        foreach (var hostile in MicroSuite.HostileBodies)
        {
            var slow = Speed(MicroSuite.FreightParser, hostile);
            yield return Unpaired(
                new RatioResult(
                    $"{MicroSuite.FreightParser} {hostile} time ÷ {MicroSuite.NormalBody} time",
                    MicroSuite.Id(MicroSuite.FreightParser, hostile),
                    MicroSuite.Id(MicroSuite.FreightParser, MicroSuite.NormalBody),
                    normal?.Median / slow?.Median,
                    Goal: MicroSuite.HostileSlowdownGoal,
                    LowerIsBetter: true),
                normal,
                slow);
        }

        foreach (var body in (IEnumerable<string>)[MicroSuite.NormalBody, .. MicroSuite.HostileBodies])
        {
            var freight = Speed(MicroSuite.FreightParser, body);
            var aspNetCore = Speed(MicroSuite.AspNetCoreParser, body);
            yield return Unpaired(
                new RatioResult(
                    $"{MicroSuite.FreightParser} ÷ {MicroSuite.AspNetCoreParser}, {body}",
                    MicroSuite.Id(MicroSuite.FreightParser, body),
                    MicroSuite.Id(MicroSuite.AspNetCoreParser, body),
                    freight?.Median / aspNetCore?.Median),
                freight,
                aspNetCore);
        }
    }

    private static RatioResult Unpaired(RatioResult ratio, Summary? numerator, Summary? denominator)
    {
        if (numerator?.Samples is not { Count: >= 2 } a || denominator?.Samples is not { Count: >= 2 } b)
        {
            return ratio;
        }

        var interval = RatioStatistics.Unpaired(a, b);
        return ratio with { Estimate = interval.Estimate, Low = interval.Low, High = interval.High, Runs = interval.Runs, Method = interval.Method };
    }
}
