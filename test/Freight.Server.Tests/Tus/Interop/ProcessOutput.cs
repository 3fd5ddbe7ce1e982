namespace Freight.Server.Tests.Tus.Interop;

/// <summary>A finished child process: null <see cref="ExitCode"/> when it was killed for running too long.</summary>
internal sealed record ProcessOutput(string CommandLine, int? ExitCode, string Stdout, string Stderr)
{
    // Enough for every request line of a failed run; the head is the least useful part.
    private const int MaxShown = 24_000;

    /// <summary>What an assertion message shows: the command, how it ended, and the tail of its output.</summary>
    public string Describe() =>
        $"""
        `{CommandLine}` {(ExitCode is { } code ? $"exited with {code}" : "was killed after running too long")}
        stdout:
        {Tail(Stdout)}
        stderr:
        {Tail(Stderr)}
        """;

    private static string Tail(string text) => text.Length <= MaxShown ? text : "…" + text[^MaxShown..];
}
