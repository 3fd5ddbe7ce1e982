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

    private const string Goal128K = "freight / nginx req/s under wrk, 128 KiB, 32 conns";

    [Fact]
    public void StaticRatios_WrkHeldItsCoreOnNginxsRows_TheAbove1GoalSaysClientBoundAndKeepsItsVerdict()
    {
        // 128 KiB: wrk spent 0.97 s of CPU in each 1 s round against nginx; Freight read 0.9× nginx in every round.
        var rows = new[]
        {
            Row(StaticSuite.Freight, StaticScenario.Wrk, [18_000, 18_900, 18_450], 131_072, clientCpuSeconds: 0.97),
            Row(StaticSuite.Nginx, StaticScenario.Wrk, [20_000, 21_000, 20_500], 131_072, clientCpuSeconds: 0.97),
        };

        var goal = StaticRatios.Compute(rows).Single(r => r.Name == Goal128K);

        Assert.Equal(1.2, goal.Goal);
        Assert.Equal("missed", goal.Verdict);
        Assert.Equal(
            "client-bound: wrk used 97 % of a core on peer/nginx's rounds, so requests/s cannot show a server much past 1.0×; "
            + "compare the rows' server CPU a response (srv µs/resp)",
            goal.Caveat);
        Assert.EndsWith(goal.Caveat, goal.VerdictNote, StringComparison.Ordinal);
    }

    [Fact]
    public void StaticRatios_WrkHadRoomOrTheGoalIsBelow1_NoCaveat()
    {
        var roomy = new[]
        {
            Row(StaticSuite.Freight, StaticScenario.Wrk, [18_000, 18_900, 18_450], 131_072, clientCpuSeconds: 0.6),
            Row(StaticSuite.Nginx, StaticScenario.Wrk, [20_000, 21_000, 20_500], 131_072, clientCpuSeconds: 0.6),
        };
        var small = new[]
        {
            Row(StaticSuite.Freight, StaticScenario.Wrk, [48_000, 52_000, 50_000], clientCpuSeconds: 0.97),
            Row(StaticSuite.Nginx, StaticScenario.Wrk, [60_000, 65_000, 62_500], clientCpuSeconds: 0.97),
        };

        Assert.Null(StaticRatios.Compute(roomy).Single(r => r.Name == Goal128K).Caveat);
        // 0.9×: a saturated client caps nginx's rate, and a Freight below 0.9× of that cap is still slower than the client.
        Assert.Null(StaticRatios.Compute(small).Single(r => r.Name == Goal4K).Caveat);
    }

    /// <summary>One row of 1 s rounds at these rates, its client spending <paramref name="clientCpuSeconds"/> in each.</summary>
    private static ScenarioResult Row(string id, string generator, double[] requestsPerSecond, long fileBytes = 4096, double clientCpuSeconds = 0)
    {
        var runs = new StaticSuiteRunner.ScenarioRuns();
        foreach (var rate in requestsPerSecond)
        {
            runs.Runs.Add(new StaticSuiteRunner.StaticRun(rate, rate * fileBytes, (long)rate, null, null, new Dictionary<int, long> { [200] = (long)rate }, 0, 0, 0, 0, null)
            {
                ClientCpuSeconds = clientCpuSeconds,
            });
        }

        return StaticSuiteRunner.Summarize(new StaticScenario(id, fileBytes, StaticSuite.GoalConnections, generator), runs, []);
    }
}
