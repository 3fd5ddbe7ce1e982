using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Tests;

public sealed class SeriesCsvTests
{
    [Fact]
    public void Render_PointsWithAndWithoutServerSamples_WritesOneInvariantLinePerSecond()
    {
        var csv = SeriesCsv.Render(
        [
            new SeriesPoint(0, 1, 10, 0, 1.0005, 1.25, 5, 0, 12.5, 30),
            new SeriesPoint(1, 2, 0, 1, null, null, null, null, null, null),
        ]);

        Assert.Equal(
            SeriesCsv.Header + "\n" +
            "0,1,10,0,1.0005,1.25,5,0,12.5,30\n" +
            "1,2,0,1,,,,,,\n",
            csv.ReplaceLineEndings("\n"));
    }

    [Fact]
    public async Task Write_OneFileCannotBeWritten_NoneIsAndTheEarlierSeriesStays()
    {
        using var directory = new TemporaryDirectory("freight-series-");
        var json = directory.Combine("run.json");
        var earlier = directory.Combine("run.threads-sleep.csv");
        await File.WriteAllTextAsync(earlier, "earlier");

        // The second row's file name is past the file system's 255 bytes: the set stops before the first is replaced.
        var report = Report(Row("threads/sleep"), Row("threads/" + new string('x', 300)));
        await Assert.ThrowsAnyAsync<IOException>(() => SeriesCsv.WriteAsync(report, json));

        Assert.Equal("earlier", await File.ReadAllTextAsync(earlier));
        Assert.Equal([earlier], directory.Entries());
    }

    [Fact]
    public async Task Write_ThreadsRows_OneWholeFileEachAndNothingElse()
    {
        using var directory = new TemporaryDirectory("freight-series-");
        var json = directory.Combine("run.json");

        var written = await SeriesCsv.WriteAsync(Report(Row("threads/sleep"), Row("threads/delay")), json);

        string[] expected = [directory.Combine("run.threads-sleep.csv"), directory.Combine("run.threads-delay.csv")];
        Assert.Equal(expected, written);
        Assert.Equal(expected.Order(StringComparer.Ordinal), directory.Entries());
        Assert.Equal(SeriesCsv.Header + "\n0,1,10,0,,,,,,\n", (await File.ReadAllTextAsync(expected[0])).ReplaceLineEndings("\n"));
    }

    private static ScenarioResult Row(string scenario) => new()
    {
        Scenario = scenario,
        Suite = Bench.Suites.Threads.ThreadsSuite.Name,
        Parameters = new ScenarioParameters { Label = scenario },
        Series = [new SeriesPoint(0, 1, 10, 0, null, null, null, null, null, null)],
    };

    private static BenchReport Report(params ScenarioResult[] rows) => new()
    {
        Machine = new MachineInfo(2, "linux", ".NET 10", "test"),
        Settings = new BenchSettings(["threads"], false, 1, 10, 0, 0, false, "embedded"),
        Results = [.. rows],
    };
}
