namespace Freight.Bench.Tests.Reports;

/// <summary>What a process did: its command line, exit code (null when it was killed past its patience) and output.</summary>
internal sealed record ProcessOutput(string CommandLine, int? ExitCode, string Stdout, string Stderr)
{
    public string Describe() => $"`{CommandLine}` {(ExitCode is { } code ? $"exited {code}" : "timed out")}\nstdout:\n{Stdout}\nstderr:\n{Stderr}";
}
