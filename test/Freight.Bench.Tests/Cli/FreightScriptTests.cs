using System.Runtime.Versioning;
using Freight.Bench.Peers;

namespace Freight.Bench.Tests.Cli;

/// <summary>
/// The repository's <c>./freight</c> script, run by bash with a stand-in <c>dotnet</c> first on PATH (the real build
/// takes a minute): what its build prints, and where. The stand-in's build prints on stdout and stderr as MSBuild
/// does, counts its builds in a file, and "builds" an empty Freight.Cli.dll; run with the dll, it prints its
/// arguments as the CLI's output.
/// </summary>
[UnsupportedOSPlatform("windows")]
public sealed class FreightScriptTests : IDisposable
{
    private const string FakeDotnet = """
        #!/usr/bin/env bash
        if [ "$1" = build ]; then
          builds="$(dirname "$0")/../builds"
          echo build >> "$builds"
          if [ -n "${FAKE_BUILD_WAITS:-}" ]; then
            # Still building until a second build starts (or 3 s pass): two runs that both build overlap here.
            for _ in $(seq 60); do [ "$(wc -l < "$builds")" -ge 2 ] && break; sleep 0.05; done
          fi
          echo "build output on stdout"
          echo "build output on stderr" >&2
          if [ -n "${FAKE_BUILD_FAILS:-}" ]; then echo "Program.cs(1,1): error CS1002: ; expected"; exit 3; fi
          while [ $# -gt 0 ]; do if [ "$1" = -o ]; then out="$2"; fi; shift; done
          mkdir -p "$out" && : > "$out/Freight.Cli.dll"
          exit 0
        fi
        echo "cli: ${*:2}"
        """;

    private readonly DirectoryInfo _root = Directory.CreateTempSubdirectory("freight-script-");

    public FreightScriptTests()
    {
        var repository = NodePackages.FindRepositoryRoot()
            ?? throw new InvalidOperationException($"No {NodePackages.SolutionFileName} above {AppContext.BaseDirectory}: these tests run from the repository's build output.");
        File.Copy(Path.Combine(repository, "freight"), Path.Combine(_root.FullName, "freight"));
        var bin = Directory.CreateDirectory(Path.Combine(_root.FullName, "bin"));
        File.WriteAllText(Path.Combine(bin.FullName, "dotnet"), FakeDotnet.ReplaceLineEndings("\n") + "\n");
        File.SetUnixFileMode(Path.Combine(bin.FullName, "dotnet"), UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
    }

    [Fact]
    public async Task FirstRun_BuildSucceeds_StderrSaysOneLineAndStdoutIsTheCommands()
    {
        var run = await RunAsync("bench", "--json", "-");

        Assert.True(run.ExitCode == 0, run.Describe());
        Assert.Equal("cli: bench --json -\n", run.Stdout);
        Assert.Equal("freight: building the CLI (first run, about a minute)…\n", run.Stderr);
    }

    [Fact]
    public async Task SecondRun_UpToDate_PrintsOnlyTheCommands()
    {
        await RunAsync("serve", "--help");

        var run = await RunAsync("serve", "--help");

        Assert.True(run.ExitCode == 0, run.Describe());
        Assert.Equal("cli: serve --help\n", run.Stdout);
        Assert.Equal("", run.Stderr);
    }

    [Fact]
    public async Task BuildFails_ShowsItsOutputOnStderrAndExitsWithItsCode()
    {
        var run = await RunAsync(["FAKE_BUILD_FAILS=1"], "serve", "--help");

        Assert.Equal(3, run.ExitCode);
        Assert.Equal("", run.Stdout);
        Assert.Equal(
            """
            freight: building the CLI (first run, about a minute)…
            build output on stdout
            build output on stderr
            Program.cs(1,1): error CS1002: ; expected
            freight: the CLI did not build (exit code 3; its output is above)

            """.ReplaceLineEndings("\n"),
            run.Stderr);
        Assert.False(File.Exists(Path.Combine(_root.FullName, "artifacts", "cli", "Freight.Cli.dll")));
    }

    [Fact]
    public async Task TwoFirstRuns_StartedTogether_BuildOnce()
    {
        var runs = await Task.WhenAll(RunAsync(["FAKE_BUILD_WAITS=1"], "bench"), RunAsync(["FAKE_BUILD_WAITS=1"], "load"));

        Assert.All(runs, run => Assert.True(run.ExitCode == 0, run.Describe()));
        Assert.Equal(["cli: bench\n", "cli: load\n"], runs.Select(r => r.Stdout));
        Assert.Single(File.ReadAllLines(Path.Combine(_root.FullName, "builds")));
        // One builds; the other waited for it (when it found the lock taken) and ran the CLI it built.
        Assert.Single(runs, r => r.Stderr == "freight: building the CLI (first run, about a minute)…\n");
        Assert.Single(runs, r => r.Stderr is "" or "freight: waiting for another run's build of the CLI…\n");
    }

    public void Dispose() => _root.Delete(recursive: true);

    private Task<ChildProcessResult> RunAsync(params string[] args) => RunAsync([], args);

    private Task<ChildProcessResult> RunAsync(string[] environment, params string[] args)
    {
        var path = Path.Combine(_root.FullName, "bin") + ":" + Environment.GetEnvironmentVariable("PATH");
        return ChildProcess.RunAsync(
            "env", [$"PATH={path}", .. environment, "bash", Path.Combine(_root.FullName, "freight"), .. args], _root.FullName, TimeSpan.FromMinutes(1), CancellationToken.None);
    }
}
