namespace Freight.Bench.Tests.Load.Command;

/// <summary>
/// What <c>freight load</c> leaves in its output files (<c>--json</c>, <c>--csv</c>, …) however the run ends: a
/// result whole, or the file that was there before.
/// </summary>
public sealed class LoadOutputTests
{
    [Fact]
    public async Task Get_CtrlCOverAnEarlierResult_TheRunsResultIsWrittenWhole()
    {
        await using var server = await LoadTargetServer.StartAsync();
        var json = Path.Combine(Path.GetTempPath(), $"freight-load-{Guid.NewGuid():N}.json");
        await File.WriteAllTextAsync(json, "{ \"an earlier result\": true }");
        try
        {
            // Ctrl+C once the run is under way (the CLI's start-up on a loaded machine can take seconds), long before -d 60.
            var run = await LoadCli.InterruptAsync(json, () => LoadTargetServer.WaitForPayloadsAsync(20),
                server.Url("/payload/4096").ToString(), "-c", "2", "-d", "60", "--no-progress");

            Assert.Contains("responses  ", run.Stdout, StringComparison.Ordinal);
            Assert.DoesNotContain("cannot write", run.Stderr, StringComparison.Ordinal);
            Assert.True(run.Row.StatusCodes!["200"] > 0, run.Stdout + run.Stderr);
            Assert.Single(Directory.GetFiles(Path.GetDirectoryName(json)!, Path.GetFileName(json) + "*"));
        }
        finally
        {
            File.Delete(json);
        }
    }

    [Fact]
    public async Task Get_UrlLongerThanAFileName_EveryCsvTableIsWritten()
    {
        await using var server = await LoadTargetServer.StartAsync();
        var directory = Directory.CreateTempSubdirectory("freight-load-csv-").FullName;
        try
        {
            // The row's label holds the URL; the CSV names are made of it.
            var url = server.Url("/payload/16?q=" + new string('x', 300)).ToString();

            var run = await LoadCli.RunAsync(url, "-c", "1", "-n", "2", "--no-progress", "--csv", directory);

            Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
            var files = Directory.GetFiles(directory);
            Assert.Contains($"csv: {directory} ({files.Length} files)", run.Stdout, StringComparison.Ordinal);
            Assert.True(files.Length > 2, string.Join(", ", files));
            Assert.All(files, file => Assert.InRange(Path.GetFileName(file).Length, 1, 255));
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }
}
