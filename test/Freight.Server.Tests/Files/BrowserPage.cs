using System.Globalization;
using System.Text.Json;
using Freight.Bench.Peers;

namespace Freight.Server.Tests.Files;

/// <summary>
/// A page in headless Chromium using serve from another origin: <c>test/interop/browser/cors.mjs</c> under Node,
/// driving Debian's /usr/bin/chromium through playwright-core. The test installs what it needs itself, as the report's
/// render test does: the npm packages the committed package-lock.json pins (<c>npm ci</c>) and, when /usr/bin/chromium
/// is missing, the browser (<c>scripts/install-chromium.sh</c>, root and apt-get); without them it fails saying so.
/// </summary>
internal static class BrowserPage
{
    // Guards against a hang; no test asserts on time. The script's requests take well under a second on loopback.
    private static readonly TimeSpan s_runPatience = TimeSpan.FromSeconds(90);

    // What cors.mjs allows Chromium for launch, each page load and each request before it gives up and says so.
    private static readonly TimeSpan s_scriptTimeout = TimeSpan.FromSeconds(30);

    // One small package (playwright-core) from npm; the browser with its libraries from apt: a slow mirror takes minutes.
    private static readonly TimeSpan s_installPatience = TimeSpan.FromMinutes(10);

    private static readonly string s_repositoryRoot = NodePackages.FindRepositoryRoot()
        ?? throw new InvalidOperationException($"No Freight.slnx above {AppContext.BaseDirectory}: the browser tests run from the repository's build output.");

    /// <summary>The npm project folder: <c>{repository}/test/interop/browser</c>.</summary>
    public static string ProjectDirectory { get; } = Path.Combine(s_repositoryRoot, "test", "interop", "browser");

    private static string Node =>
        NodePackages.FindNode() ?? throw new InvalidOperationException("the browser tests need Node.js (20 or later) and npm on PATH.");

    /// <summary>Installs the browser when missing, checks Node.js, then runs <c>npm ci</c> unless node_modules holds what the lock pins.</summary>
    public static async Task EnsureInstalledAsync()
    {
        var missing = await Chromium.EnsureInstalledAsync(s_repositoryRoot, s_installPatience, CancellationToken.None);
        Assert.True(missing is null, missing);
        var version = await NodePackages.GetNodeVersionAsync(Node, CancellationToken.None);
        Assert.True(version?.Major >= 20, $"the browser tests need Node.js 20 or later (playwright-core); PATH has {(version is null ? "a node whose --version failed" : $"v{version}")}");
        await NodePackages.EnsureInstalledAsync(ProjectDirectory, s_installPatience, CancellationToken.None);
    }

    /// <summary>Opens <paramref name="page"/> and runs cors.mjs's requests against <paramref name="server"/>; returns what the page read.</summary>
    public static async Task<JsonElement> RunCorsAsync(Uri page, Uri server, string file, string shared)
    {
        var output = await ChildProcess.RunAsync(
            Node,
            [
                Path.Combine(ProjectDirectory, "cors.mjs"),
                "--page", page.ToString(),
                "--server", server.GetLeftPart(UriPartial.Authority),
                "--file", file,
                "--shared", shared,
                "--chromium", Chromium.ExecutablePath,
                "--timeout-ms", ((long)s_scriptTimeout.TotalMilliseconds).ToString(CultureInfo.InvariantCulture),
            ],
            ProjectDirectory,
            s_runPatience,
            CancellationToken.None);
        Assert.True(output.ExitCode == 0, "cors.mjs failed: " + output.Describe());
        return JsonDocument.Parse(output.Stdout).RootElement.Clone();
    }
}
