using Freight.Bench.Peers;
using Freight.Bench.Reports;

namespace Freight.Bench.Tests.Reports;

/// <summary>
/// The report tests' fixture: Reports/Fixtures/report.json, a hand-made result file trimmed from docs/results (see
/// Fixtures/README.md), and the golden outputs beside it. Read from the build output; goldens are rewritten in the
/// source tree when FREIGHTTEST_UPDATE_GOLDEN=1.
/// </summary>
internal static class ReportFixture
{
    public static string Directory { get; } = Path.Combine(AppContext.BaseDirectory, "Reports", "Fixtures");

    public static string ResultPath { get; } = Path.Combine(Directory, "report.json");

    public static string GoldenMarkdownPath { get; } = Path.Combine(Directory, "report.golden.md");

    public static string GoldenCsvDirectory { get; } = Path.Combine(Directory, "report.golden-csv");

    /// <summary>Every scenario id of report.json, in file order.</summary>
    public static IReadOnlyList<string> Scenarios { get; } =
    [
        "tcp/loopback", "download/stream-4k", "upload/multipart-reader", "download/freight", "upload/freight",
        "files/get", "peer/nginx-get",
        "static/staticfiles", "static/freight", "peer/nginx",
        "threads/sleep", "threads/delay", "load/ping", "peer/wrk",
    ];

    public static bool UpdateGoldens => Environment.GetEnvironmentVariable("FREIGHTTEST_UPDATE_GOLDEN") == "1";

    /// <summary>The fixtures folder in the source tree (where FREIGHTTEST_UPDATE_GOLDEN=1 writes).</summary>
    public static string SourceDirectory => Path.Combine(RepositoryRoot(), "test", "Freight.Bench.Tests", "Reports", "Fixtures");

    public static async Task<CompareSource> LoadAsync(string? path = null)
    {
        path ??= ResultPath;
        var (report, error) = await CompareCommand.LoadAsync(path);
        Assert.True(report is not null, error);
        return new CompareSource(Path.GetFileName(path), report);
    }

    /// <summary>A fresh folder under the build output for one test's files (kept after the run, for a look).</summary>
    public static string ArtifactsDirectory(string name)
    {
        var directory = Path.Combine(AppContext.BaseDirectory, "artifacts", name);
        System.IO.Directory.CreateDirectory(directory);
        return directory;
    }

    public static string RepositoryRoot() =>
        NodePackages.FindRepositoryRoot()
        ?? throw new InvalidOperationException($"No Freight.slnx above {AppContext.BaseDirectory}: the report tests run from the repository's build output.");
}
