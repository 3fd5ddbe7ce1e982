using System.Globalization;
using System.Text.RegularExpressions;

namespace Freight.Bench.Tests.Load.Command;

/// <summary><c>freight load</c>'s live line, one a second when stderr is not a terminal: its MiB/s is of its own second's responses.</summary>
public sealed partial class LoadProgressLineTests
{
    [Fact]
    public async Task Get_4KiBResponses_EachLinesMiBPerSecondIsItsResponsesTimes4KiB()
    {
        await using var server = await LoadTargetServer.StartAsync();

        // 2.5 s: two seconds the ticker closes a grace period late, and a partial last one closed when the run ends.
        var run = await LoadCli.RunAsync(server.Url("/payload/4096").ToString(), "-c", "2", "-d", "2.5");

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        var lines = ProgressLine().Matches(run.Stderr);
        Assert.True(lines.Count >= 2, run.Stderr);
        foreach (Match line in lines)
        {
            var requests = double.Parse(line.Groups["requests"].Value, NumberStyles.Number, CultureInfo.InvariantCulture);
            var mib = double.Parse(line.Groups["mib"].Value, NumberStyles.Number, CultureInfo.InvariantCulture);

            // Every response is 4 KiB: a line's MiB/s is its req/s / 256, to the rounding of the two figures printed.
            Assert.True(Math.Abs(mib - (requests * 4096 / (1 << 20))) <= 0.05 + (0.5 * 4096 / (1 << 20)) + 1e-9, line.Value);
        }
    }

    [GeneratedRegex(@"(?m)^ +\d+ s +(?<requests>[0-9,]+) req/s +(?<mib>[0-9,.]+) MiB/s")]
    private static partial Regex ProgressLine();
}
