using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Progress;

/// <summary>
/// What the person watching a bench sees while it runs: the suite and scenario in progress, how far along it
/// is, the live rate and verified counts, and each row as it finishes. <see cref="TerminalProgress"/> redraws a
/// live line in place; <see cref="PlainProgress"/> writes plain lines for logs. The final tables are not its
/// business (<see cref="ConsoleReport"/> prints them after <see cref="Complete"/>).
/// </summary>
/// <remarks>
/// Called from the suites' flow once per step, row or message, and (<see cref="Line"/>, <see cref="Detail"/>) from
/// timer tasks: implementations are thread-safe. Never called per request or per chunk: measuring loops add to
/// <see cref="Live"/>, which costs them an interlocked add, and the display reads it on its own schedule.
/// </remarks>
public interface IBenchProgress : IDisposable
{
    /// <summary>The live counters of the suite in progress (a new set for each suite).</summary>
    LiveCounters Live { get; }

    /// <summary>A suite begins: its name, its one-line description, and the seconds its steps are planned to take in all.</summary>
    void SuiteStarted(string suite, string header, double plannedSeconds);

    /// <summary>One warm-up, run or round of one scenario begins.</summary>
    void StepStarted(ProgressStep step);

    /// <summary>An interleaved pass over every scenario of the suite is done.</summary>
    void RunFinished(int run, int runs, TimeSpan elapsed);

    /// <summary>A row's figures are final (or it failed).</summary>
    void RowFinished(ScenarioResult row);

    /// <summary>A message that stays: a failure, a peer left out, a group of rows beginning.</summary>
    void Line(string text);

    /// <summary>A passing detail of the step in progress (a load ramp's last seconds): a line in logs, the live line's tail on a terminal.</summary>
    void Detail(string text);

    /// <summary>The suite is done: its rows are all reported.</summary>
    void SuiteFinished();

    /// <summary>Ends the display: the live line is erased and the cursor restored. Safe to call more than once.</summary>
    void Complete();
}
