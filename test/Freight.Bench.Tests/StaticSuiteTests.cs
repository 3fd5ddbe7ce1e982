using System.Text.Json;

namespace Freight.Bench.Tests;

/// <summary>Study 4's Freight path through the whole bench, quick: its rows' per-second series and their report.</summary>
public sealed class StaticSuiteTests
{
    [Fact]
    public async Task StaticFreight_QuickTwoRounds_EngineRowsCarryPerSecondSeriesWithServerSamplesAndWrkRowsNone()
    {
        var json = Path.Combine(Path.GetTempPath(), $"freight-static-test-{Guid.NewGuid():N}.json");
        var html = Path.ChangeExtension(json, ".html");
        try
        {
            var options = BenchCommand.Parse(["--suite", "static", "--quick", "--filter", "static/freight", "--runs", "2", "--json", json], out var error);
            Assert.Null(error);
            var console = new StringWriter();

            var exitCode = await new BenchRunner(options!, console).RunAsync(CancellationToken.None);

            Assert.True(exitCode == 0, console.ToString());
            using var document = JsonDocument.Parse(await File.ReadAllTextAsync(json));
            Assert.Equal("static/freight", document.RootElement.GetProperty("settings").GetProperty("filter").GetString());
            var rows = document.RootElement.GetProperty("results").EnumerateArray().ToList();
            var engine = rows.Where(r => r.GetProperty("parameters").GetProperty("generator").GetString() == "engine").ToList();
            // static/freight at each of 4 sizes, and its A/A copy (static/freight#a, 4 KiB).
            Assert.Equal(5, engine.Count);
            Assert.Single(engine, r => r.GetProperty("scenario").GetString() == "static/freight#a");
            var points = new List<JsonElement>();
            foreach (var row in engine)
            {
                var label = row.GetProperty("parameters").GetProperty("label").GetString();
                var series = row.GetProperty("series").EnumerateArray().ToList();

                // Two 1 s rounds: at least a whole second each, numbered on from the first round's.
                Assert.True(series.Count >= 2, $"{label}: {series.Count} seconds");
                Assert.Equal(Enumerable.Range(0, series.Count), series.Select(p => p.GetProperty("second").GetInt32()));
                Assert.All(series, p =>
                {
                    Assert.Equal(32, p.GetProperty("connections").GetInt32());
                    Assert.True(p.GetProperty("completions").GetInt64() > 0, label);
                    Assert.True(p.GetProperty("p99Seconds").GetDouble() > 0, label);
                });
                points.AddRange(series);
            }

            // The server samples itself once a second, so the seconds of the rounds hold its thread pool.
            Assert.Contains(points, p => p.TryGetProperty("threadPoolThreads", out var threads) && threads.GetInt32() > 0);

            // wrk prints no per-second figures: its rows have no series (and no CSV is written for static rows).
            Assert.All(rows.Where(r => r.GetProperty("parameters").GetProperty("generator").GetString() == "wrk"), row =>
                Assert.False(row.TryGetProperty("series", out _)));
            Assert.DoesNotContain("time series:", console.ToString(), StringComparison.Ordinal);

            // The report beside the result draws each group's time series.
            var report = await File.ReadAllTextAsync(html);
            Assert.Contains("data-chart=\"static-responses-per-second-4-kib-32-conns\"", report, StringComparison.Ordinal);
            Assert.Contains("data-chart=\"static-thread-pool-threads-", report, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(json);
            File.Delete(html);
        }
    }
}
