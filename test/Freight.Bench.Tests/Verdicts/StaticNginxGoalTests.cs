using Freight.Bench.Results;
using Freight.Bench.Suites.Static;

namespace Freight.Bench.Tests.Verdicts;

/// <summary>
/// Issue 20's goals against nginx are judged under wrk, as the issue states them, never from the load engine's rows
/// (whose own CPU a response differs by server). Synthetic rounds, so each ratio is known exactly.
/// </summary>
public sealed class StaticNginxGoalTests
{
    private const string Goal4K = "freight / nginx req/s under wrk, 4 KiB, 32 conns";

    [Fact]
    public void StaticRatios_EngineAndWrkRows_NginxGoalFromTheWrkRowsAlone()
    {
        // Under the engine nginx looks slow (Freight 2×); under wrk Freight does 0.8× of nginx in every round.
        var rows = new[]
        {
            Row(StaticSuite.Freight, StaticScenario.Engine, [40_000, 42_000, 41_000]),
            Row(StaticSuite.Nginx, StaticScenario.Engine, [20_000, 21_000, 20_500]),
            Row(StaticSuite.Freight, StaticScenario.Wrk, [48_000, 52_000, 50_000]),
            Row(StaticSuite.Nginx, StaticScenario.Wrk, [60_000, 65_000, 62_500]),
        };

        var goal = StaticRatios.Compute(rows).Single(r => r.Name == Goal4K);

        Assert.Equal(0.8, goal.Value!.Value, 9);
        Assert.Equal(0.9, goal.Goal);
        Assert.Equal("missed", goal.Verdict);
        // The engine's second opinion pairs the same Freight rows: 41,000 ÷ 50,000.
        Assert.Equal(0.82, StaticRatios.Compute(rows).Single(r => r.Name == "engine / wrk req/s on static/freight, 4 KiB, 32 conns").Value!.Value, 9);
    }

    [Fact]
    public void StaticRatios_NoWrkRows_NginxGoalNotMeasured()
    {
        // wrk missing: the engine's nginx row does not stand in for it.
        var rows = new[]
        {
            Row(StaticSuite.Freight, StaticScenario.Engine, [40_000, 42_000, 41_000]),
            Row(StaticSuite.Nginx, StaticScenario.Engine, [20_000, 21_000, 20_500]),
        };

        var goal = StaticRatios.Compute(rows).Single(r => r.Name == Goal4K);

        Assert.Null(goal.Value);
        Assert.Equal(0.9, goal.Goal);
    }

    private static ScenarioResult Row(string id, string generator, double[] requestsPerSecond)
    {
        var runs = new StaticSuiteRunner.ScenarioRuns();
        foreach (var rate in requestsPerSecond)
        {
            runs.Runs.Add(new StaticSuiteRunner.StaticRun(rate, rate * 4096, (long)rate, null, null, new Dictionary<int, long> { [200] = (long)rate }, 0, 0, 0, 0, null));
        }

        return StaticSuiteRunner.Summarize(new StaticScenario(id, 4096, StaticSuite.GoalConnections, generator), runs, []);
    }
}
