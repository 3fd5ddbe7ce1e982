using System.Globalization;
using Freight.Bench.Peers;

namespace Freight.Server.Tests.Tus.Interop;

/// <summary>
/// The official tus-js-client under Node: <c>test/interop/tus-js-client/upload.mjs</c>, with the npm packages its
/// committed package-lock.json pins, installed by the tests themselves (<c>npm ci</c>) so a fresh clone needs only
/// Node.js and npm on PATH.
/// </summary>
internal static class TusJsClient
{
    // Guards against a hang; no test asserts on time. The script bounds itself (--timeout-ms) well inside this.
    private static readonly TimeSpan s_uploadPatience = TimeSpan.FromSeconds(120);

    // What upload.mjs allows itself (--timeout-ms) before it reports where it stood and exits non-zero: a 64 MiB
    // upload on loopback takes about a second, so a broken server fails the run long before this.
    private static readonly TimeSpan s_scriptTimeout = TimeSpan.FromSeconds(60);

    // A first install downloads ~20 small packages; a busy registry mirror can be slow.
    private static readonly TimeSpan s_installPatience = TimeSpan.FromMinutes(5);

    /// <summary>The npm project folder: <c>{repository}/test/interop/tus-js-client</c>.</summary>
    public static string ProjectDirectory { get; } = Path.Combine(
        NodePackages.FindRepositoryRoot() ?? throw new InvalidOperationException($"No Freight.slnx above {AppContext.BaseDirectory}: the interop tests run from the repository's build output."),
        "test", "interop", "tus-js-client");

    private static string Node =>
        NodePackages.FindNode() ?? throw new InvalidOperationException("tus-js-client interop tests need Node.js (18 or later) and npm on PATH.");

    /// <summary>
    /// Checks Node.js, then runs <c>npm ci</c> unless node_modules already holds what package.json and
    /// package-lock.json pin (<see cref="NodePackages.EnsureInstalledAsync"/>: a stamp of their SHA-256, and a file
    /// lock that serialises test processes that start at once).
    /// </summary>
    public static async Task EnsureInstalledAsync()
    {
        var version = await NodePackages.GetNodeVersionAsync(Node, CancellationToken.None);
        Assert.True(version?.Major >= 18, $"tus-js-client interop tests need Node.js 18 or later; PATH has {(version is null ? "a node whose --version failed" : $"v{version}")}");
        await NodePackages.EnsureInstalledAsync(ProjectDirectory, s_installPatience, CancellationToken.None);
    }

    /// <summary>
    /// Uploads <paramref name="sourceFile"/> to <paramref name="endpoint"/> with <c>upload.mjs --mode
    /// <paramref name="mode"/></c>; returns what the script printed (it has run to its end, successfully or not).
    /// </summary>
    public static async Task<TusRun> UploadAsync(Uri endpoint, string sourceFile, int chunkSize, string filename, string mode)
    {
        var output = await ChildProcess.RunAsync(
            Node,
            [
                Path.Combine(ProjectDirectory, "upload.mjs"),
                "--endpoint", endpoint.ToString(),
                "--file", sourceFile,
                "--chunk-size", chunkSize.ToString(CultureInfo.InvariantCulture),
                "--filename", filename,
                "--mode", mode,
                "--timeout-ms", ((long)s_scriptTimeout.TotalMilliseconds).ToString(CultureInfo.InvariantCulture),
            ],
            ProjectDirectory,
            s_uploadPatience,
            CancellationToken.None);
        return new TusRun(output);
    }
}
