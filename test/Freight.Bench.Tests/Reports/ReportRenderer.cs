using System.ComponentModel;
using System.Diagnostics;
using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;

namespace Freight.Bench.Tests.Reports;

/// <summary>
/// Headless Chromium on an HTML report: <c>test/report-render/render.mjs</c> under Node, driving Debian's
/// /usr/bin/chromium through playwright-core. The tests install what it needs themselves: the npm packages its
/// committed package-lock.json pins (<c>npm ci</c>), and, when /usr/bin/chromium is missing, the browser through
/// <c>scripts/install-chromium.sh</c> (root and apt-get). A fresh machine needs only Node.js 20+ and npm on PATH.
/// </summary>
internal static class ReportRenderer
{
    public const string Chromium = "/usr/bin/chromium";

    // Guards against a hang; no test asserts on time. A page of this size renders in about a second.
    private static readonly TimeSpan s_renderPatience = TimeSpan.FromSeconds(120);

    // What render.mjs allows Chromium for launch, load and screenshot before it gives up and says so.
    private static readonly TimeSpan s_scriptTimeout = TimeSpan.FromSeconds(60);

    // One small package (playwright-core) from npm; the browser with its libraries from apt: a slow mirror takes minutes.
    private static readonly TimeSpan s_installPatience = TimeSpan.FromMinutes(10);

    // Another test process may hold the install lock for as long as its own install takes.
    private static readonly TimeSpan s_lockPatience = s_installPatience + TimeSpan.FromMinutes(1);

    private const string Stamp = ".freight-npm-ci";

    /// <summary>The npm project folder: <c>{repository}/test/report-render</c>.</summary>
    public static string ProjectDirectory { get; } = Path.Combine(ReportFixture.RepositoryRoot(), "test", "report-render");

    public static async Task EnsureInstalledAsync()
    {
        if (!File.Exists(Chromium))
        {
            await using var browserLock = await AcquireLockAsync("chromium");
            if (!File.Exists(Chromium))
            {
                var script = Path.Combine(ReportFixture.RepositoryRoot(), "scripts", "install-chromium.sh");
                var install = await RunAsync("bash", [script], ProjectDirectory, s_installPatience);
                Assert.True(install.ExitCode == 0 && File.Exists(Chromium), $"{Chromium} is missing and scripts/install-chromium.sh could not install it (it needs root and apt-get): " + install.Describe());
            }
        }

        var node = await RunAsync("node", ["--version"], ProjectDirectory, TimeSpan.FromSeconds(30));
        Assert.True(node.ExitCode == 0, "`node --version` failed: " + node.Describe());
        var major = int.Parse(node.Stdout.Trim().TrimStart('v').Split('.')[0], CultureInfo.InvariantCulture);
        Assert.True(major >= 20, $"the report render test needs Node.js 20 or later (playwright-core); PATH has {node.Stdout.Trim()}");

        var expected = InstallStamp();
        var stampPath = Path.Combine(ProjectDirectory, "node_modules", Stamp);
        if (IsInstalled(stampPath, expected))
        {
            return;
        }

        await using var npmLock = await AcquireLockAsync("npm");
        if (IsInstalled(stampPath, expected))
        {
            // Another process installed while this one waited for the lock.
            return;
        }

        var npm = await RunAsync("npm", ["ci", "--no-audit", "--no-fund"], ProjectDirectory, s_installPatience);
        Assert.True(npm.ExitCode == 0, $"`npm ci` in {ProjectDirectory} failed: " + npm.Describe());
        await File.WriteAllTextAsync(stampPath, expected);
    }

    /// <summary>Opens <paramref name="htmlPath"/>, saves a full-page PNG to <paramref name="screenshotPath"/>, returns what render.mjs saw.</summary>
    public static async Task<RenderResult> RenderAsync(string htmlPath, string screenshotPath, IEnumerable<string> scenarios)
    {
        var output = await RunAsync(
            "node",
            [
                Path.Combine(ProjectDirectory, "render.mjs"),
                "--html", htmlPath,
                "--screenshot", screenshotPath,
                "--scenarios", string.Join(',', scenarios),
                "--chromium", Chromium,
                "--timeout-ms", ((long)s_scriptTimeout.TotalMilliseconds).ToString(CultureInfo.InvariantCulture),
            ],
            ProjectDirectory,
            s_renderPatience);
        Assert.True(output.ExitCode == 0, "render.mjs failed: " + output.Describe());
        var result = JsonSerializer.Deserialize<RenderResult>(output.Stdout, JsonSerializerOptions.Web);
        Assert.True(result is not null, "render.mjs printed no result: " + output.Describe());
        return result;
    }

    private static bool IsInstalled(string stampPath, string expected) =>
        File.Exists(stampPath)
        && File.ReadAllText(stampPath) == expected
        && File.Exists(Path.Combine(ProjectDirectory, "node_modules", "playwright-core", "package.json"));

    private static string InstallStamp()
    {
        var manifests = File.ReadAllBytes(Path.Combine(ProjectDirectory, "package.json"))
            .Concat(File.ReadAllBytes(Path.Combine(ProjectDirectory, "package-lock.json")))
            .ToArray();
        return Convert.ToHexStringLower(SHA256.HashData(manifests));
    }

    /// <summary>An exclusive lock (flock through FileShare.None) on a file named after this checkout and what it guards, outside the work tree.</summary>
    private static async Task<FileStream> AcquireLockAsync(string what)
    {
        var name = $"freight-report-render-{what}-" + Convert.ToHexStringLower(SHA256.HashData(Encoding.UTF8.GetBytes(ProjectDirectory)))[..16] + ".lock";
        var path = Path.Combine(Path.GetTempPath(), name);
        var deadline = DateTime.UtcNow + s_lockPatience;
        while (true)
        {
            try
            {
                return new FileStream(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None);
            }
            catch (IOException) when (DateTime.UtcNow < deadline)
            {
                await Task.Delay(500);
            }
        }
    }

    /// <summary>Runs <paramref name="fileName"/> to its end, killing it (and its children) past <paramref name="patience"/>.</summary>
    private static async Task<ProcessOutput> RunAsync(string fileName, IEnumerable<string> arguments, string workingDirectory, TimeSpan patience)
    {
        var start = new ProcessStartInfo(fileName)
        {
            WorkingDirectory = workingDirectory,
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        var commandLine = fileName + " " + string.Join(' ', start.ArgumentList);
        Process process;
        try
        {
            process = Process.Start(start)!;
        }
        catch (Win32Exception e)
        {
            throw new InvalidOperationException($"the report render test needs Node.js (20 or later) and npm on PATH; starting `{fileName}` failed: {e.Message}", e);
        }

        using (process)
        {
            process.StandardInput.Close();
            var stdout = process.StandardOutput.ReadToEndAsync();
            var stderr = process.StandardError.ReadToEndAsync();
            using var limit = new CancellationTokenSource(patience);
            var timedOut = false;
            try
            {
                await process.WaitForExitAsync(limit.Token);
            }
            catch (OperationCanceledException)
            {
                timedOut = true;
                process.Kill(entireProcessTree: true);
                await process.WaitForExitAsync();
            }

            return new ProcessOutput(commandLine, timedOut ? null : process.ExitCode, await stdout, await stderr);
        }
    }
}
