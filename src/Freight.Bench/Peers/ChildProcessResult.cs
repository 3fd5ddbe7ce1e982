namespace Freight.Bench.Peers;

/// <summary>How a program run to its end by <see cref="ChildProcess.RunAsync"/> ended, and what it printed.</summary>
/// <param name="CommandLine">The program and its arguments, space-separated, for messages.</param>
/// <param name="ExitCode">Its exit code; null when it ran past its time limit and was killed.</param>
public sealed record ChildProcessResult(string CommandLine, int? ExitCode, string Stdout, string Stderr)
{
    // Enough for every request line of a failed interop run; the head is the least useful part.
    private const int DescribedChars = 24_000;

    /// <summary>Its stdout and stderr together.</summary>
    public string Output => Stdout + Stderr;

    /// <summary>What a failure message shows: the command, how it ended, and the tail of its stdout and stderr.</summary>
    public string Describe() =>
        $"""
        `{CommandLine}` {(ExitCode is { } code ? $"exited with {code}" : "was killed after running too long")}
        stdout:
        {ChildProcess.Tail(Stdout, DescribedChars)}
        stderr:
        {ChildProcess.Tail(Stderr, DescribedChars)}
        """;
}
