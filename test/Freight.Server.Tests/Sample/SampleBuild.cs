using System.Diagnostics;

namespace Freight.Server.Tests.Sample;

/// <summary>
/// samples/Freight.Sample as a user builds it, once per test run: scripts/sample.sh packs the three packages into
/// artifacts/feed and restores the sample from that feed into a fresh packages folder, then builds it into
/// artifacts/sample. The script takes about a minute, so the first fixture that needs the sample runs it and every
/// other one (the sample suites and <see cref="SampleApp"/>, which start in parallel) awaits that same build.
/// </summary>
internal static class SampleBuild
{
    // Lazy's default mode runs the build once however many fixtures ask at the same time; a failed build fails them all.
    private static readonly Lazy<Task<string>> s_output = new(BuildAsync);

    /// <summary>The build output the sample runs from (artifacts/sample), whether built yet or not.</summary>
    public static string OutputDirectory { get; } = Path.Combine(RepositoryRoot(), "artifacts", "sample");

    /// <summary>The built sample's assembly, once scripts/sample.sh has run in this test run.</summary>
    public static Task<string> AssemblyAsync() => s_output.Value;

    private static async Task<string> BuildAsync()
    {
        // The restore's packages folder is only needed until the build has copied the packages' assemblies out.
        var packages = Path.Combine(Path.GetTempPath(), "freight-sample-tests", "packages-" + Guid.NewGuid().ToString("N"));
        try
        {
            var start = new ProcessStartInfo("bash", [Path.Combine(RepositoryRoot(), "scripts", "sample.sh"), packages])
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
            };
            using var build = Process.Start(start)!;
            var output = build.StandardOutput.ReadToEndAsync();
            var error = build.StandardError.ReadToEndAsync();
            await build.WaitForExitAsync();
            if (build.ExitCode != 0)
            {
                throw new InvalidOperationException($"scripts/sample.sh exited {build.ExitCode}: {await output}{await error}");
            }
        }
        finally
        {
            if (Directory.Exists(packages))
            {
                Directory.Delete(packages, recursive: true);
            }
        }

        return Path.Combine(OutputDirectory, "Freight.Sample.dll");
    }

    private static string RepositoryRoot()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "Freight.slnx")))
            {
                return directory.FullName;
            }
        }

        throw new InvalidOperationException("The repository root (Freight.slnx) is not above the test's directory.");
    }
}
