using System.Globalization;
using System.Text.Json;
using Freight.Bench.Peers;

namespace Freight.Bench.Tests.Reports;

/// <summary>
/// Headless Chromium on an HTML report: <c>test/report-render/render.mjs</c> under Node, driving Debian's
/// /usr/bin/chromium through playwright-core. The tests install what it needs themselves: the npm packages its
/// committed package-lock.json pins (<c>npm ci</c>), and, when /usr/bin/chromium is missing, the browser through
/// <c>scripts/install-chromium.sh</c> (root and apt-get). A fresh machine needs only Node.js 20+ and npm on PATH.
/// </summary>
internal static class ReportRenderer
{
    public const string Chromium = Freight.Bench.Peers.Chromium.ExecutablePath;

    // Guards against a hang; no test asserts on time. A page of this size renders in about a second.
    private static readonly TimeSpan s_renderPatience = TimeSpan.FromSeconds(120);

    // What render.mjs allows Chromium for launch, load and screenshot before it gives up and says so.
    private static readonly TimeSpan s_scriptTimeout = TimeSpan.FromSeconds(60);

    // One small package (playwright-core) from npm; the browser with its libraries from apt: a slow mirror takes minutes.
    private static readonly TimeSpan s_installPatience = TimeSpan.FromMinutes(10);

    /// <summary>The npm project folder: <c>{repository}/test/report-render</c>.</summary>
    public static string ProjectDirectory { get; } = Path.Combine(ReportFixture.RepositoryRoot(), "test", "report-render");

    private static string Node =>
        NodePackages.FindNode() ?? throw new InvalidOperationException("the report render test needs Node.js (20 or later) and npm on PATH.");

    /// <summary>
    /// Installs the browser when it is missing (one install at a time on the machine), checks Node.js, then runs
    /// <c>npm ci</c> unless node_modules already holds what package.json and package-lock.json pin
    /// (<see cref="NodePackages.EnsureInstalledAsync"/>).
    /// </summary>
    public static async Task EnsureInstalledAsync()
    {
        var missing = await Freight.Bench.Peers.Chromium.EnsureInstalledAsync(ReportFixture.RepositoryRoot(), s_installPatience, CancellationToken.None);
        Assert.True(missing is null, missing);

        var version = await NodePackages.GetNodeVersionAsync(Node, CancellationToken.None);
        Assert.True(version?.Major >= 20, $"the report render test needs Node.js 20 or later (playwright-core); PATH has {(version is null ? "a node whose --version failed" : $"v{version}")}");
        await NodePackages.EnsureInstalledAsync(ProjectDirectory, s_installPatience, CancellationToken.None);
    }

    /// <summary>Opens <paramref name="htmlPath"/>, saves a full-page PNG to <paramref name="screenshotPath"/>, returns what render.mjs saw.</summary>
    public static async Task<RenderResult> RenderAsync(string htmlPath, string screenshotPath, IEnumerable<string> scenarios)
    {
        var output = await ChildProcess.RunAsync(
            Node,
            [
                Path.Combine(ProjectDirectory, "render.mjs"),
                "--html", htmlPath,
                "--screenshot", screenshotPath,
                "--scenarios", string.Join(',', scenarios),
                "--chromium", Chromium,
                "--timeout-ms", ((long)s_scriptTimeout.TotalMilliseconds).ToString(CultureInfo.InvariantCulture),
            ],
            ProjectDirectory,
            s_renderPatience,
            CancellationToken.None);
        Assert.True(output.ExitCode == 0, "render.mjs failed: " + output.Describe());
        var result = JsonSerializer.Deserialize<RenderResult>(output.Stdout, JsonSerializerOptions.Web);
        Assert.True(result is not null, "render.mjs printed no result: " + output.Describe());
        return result;
    }
}
