namespace Freight.Bench.Progress;

/// <summary>Picks the progress display for <c>freight bench</c>: live on a terminal, plain lines anywhere else.</summary>
public static class BenchProgress
{
    /// <summary>Columns assumed when the terminal does not say (the classic 80 would cut most live lines).</summary>
    private const int DefaultWidth = 120;

    /// <summary>
    /// Whether to redraw in place: only on a terminal (stdout not redirected to a file or pipe) that understands
    /// cursor movement (TERM is not <c>dumb</c>), and only when <c>--no-progress</c> was not given.
    /// </summary>
    public static bool UseTerminal(bool noProgress, bool outputRedirected, string? term) =>
        !noProgress && !outputRedirected && !string.Equals(term, "dumb", StringComparison.Ordinal);

    /// <summary>The display for this process's console. A terminal one restores the cursor if the process is stopped.</summary>
    public static IBenchProgress ForConsole(BenchOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (!UseTerminal(options.NoProgress, Console.IsOutputRedirected, Environment.GetEnvironmentVariable("TERM")))
        {
            return new PlainProgress(Console.Out);
        }

        var terminal = new TerminalProgress(Console.Out, WindowWidth());

        // Ctrl+C cancels the bench and its caller disposes the display; SIGTERM ends the process through here.
        AppDomain.CurrentDomain.ProcessExit += (_, _) => terminal.Complete();
        return terminal;
    }

    private static int WindowWidth()
    {
        try
        {
            return Console.WindowWidth is > 0 and var width ? width : DefaultWidth;
        }
        catch (IOException)
        {
            return DefaultWidth;
        }
    }
}
