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
}
