using System.Diagnostics;
using System.Text.RegularExpressions;

namespace Freight.Tests.Fuzzing;

/// <summary>
/// The short fuzzing run CI makes: scripts/fuzz.sh runs every harness of test/Freight.Fuzz for 30 s under AFL++
/// from the committed corpus (installing afl++ when missing, which needs root and apt-get), once for the class;
/// each target's test reads its line. A crash or hang fails that target's test, with the input and what escaped.
/// </summary>
public sealed class FuzzSmokeTests : IClassFixture<FuzzSmokeTests.ShortRun>
{
    private readonly ShortRun _run;

    public FuzzSmokeTests(ShortRun run) => _run = run;

    [Theory]
    [InlineData("multipart")]
    [InlineData("byte-range")]
    [InlineData("digest-fields")]
    [InlineData("tus-headers")]
    [InlineData("storage-keys")]
    public async Task Harness_ThirtySecondsFromTheCorpus_FindsNoCrashOrHang(string target)
    {
        var (exitCode, output) = await _run.Result.Value;
        var line = Regex.Match(output, $@"^fuzz: target={Regex.Escape(target)} executions=(\d+) .* crashes=(\d+) hangs=(\d+) ", RegexOptions.Multiline);
        Assert.True(line.Success, $"scripts/fuzz.sh (exit {exitCode}) printed no result for {target}:\n{output}");
        Assert.True(long.Parse(line.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture) > 0, $"{target} ran no input:\n{output}");
        Assert.True(line.Groups[2].Value == "0" && line.Groups[3].Value == "0", $"{target} found a crash or a hang:\n{output}");
    }

    /// <summary>One run of scripts/fuzz.sh for all targets, shared by the class's tests.</summary>
    public sealed class ShortRun
    {
        // Five targets × 30 s, plus building and instrumenting the harnesses on a loaded two-core machine.
        private static readonly TimeSpan s_timeout = TimeSpan.FromMinutes(20);

        public Lazy<Task<(int ExitCode, string Output)>> Result { get; } = new(RunAsync);

        private static async Task<(int ExitCode, string Output)> RunAsync()
        {
            var root = FindRepositoryRoot()
                ?? throw new InvalidOperationException($"No Freight.slnx above {AppContext.BaseDirectory}: the fuzz run needs scripts/fuzz.sh.");
            var start = new ProcessStartInfo("bash", ["scripts/fuzz.sh", "--seconds", "30"])
            {
                WorkingDirectory = root,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
            };
            using var process = Process.Start(start) ?? throw new InvalidOperationException("Could not start scripts/fuzz.sh.");
            var stdout = process.StandardOutput.ReadToEndAsync();
            var stderr = process.StandardError.ReadToEndAsync();
            using var cancel = new CancellationTokenSource(s_timeout);
            try
            {
                await process.WaitForExitAsync(cancel.Token);
            }
            catch (OperationCanceledException)
            {
                process.Kill(entireProcessTree: true);
                throw new TimeoutException($"scripts/fuzz.sh did not finish within {s_timeout}.");
            }

            return (process.ExitCode, await stdout + await stderr);
        }

        private static string? FindRepositoryRoot()
        {
            for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
            {
                if (File.Exists(Path.Combine(dir.FullName, "Freight.slnx")))
                {
                    return dir.FullName;
                }
            }

            return null;
        }
    }
}
