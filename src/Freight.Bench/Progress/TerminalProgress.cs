using System.Globalization;
using System.Text;
using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Progress;

/// <summary>
/// Progress on a terminal: two live lines at the bottom, redrawn in place from a timer at most 10 times a second
/// (the scenario and step in progress; a bar with the share done, time elapsed and left, the step's rate and the
/// suite's verified count), with the finished rows and messages accumulating above them as a table: a line that
/// stays replaces the live lines at once, and the next tick draws them again below it. ANSI control
/// sequences only: carriage return, cursor up (CSI A), erase line (CSI 2K), and the cursor hidden while the live
/// lines are shown (CSI ?25l) and shown again by <see cref="Complete"/>.
/// </summary>
public sealed class TerminalProgress : IBenchProgress
{
    /// <summary>10 redraws a second: the figures read as live, and two short lines per 100 ms cost the bench nothing.</summary>
    public static readonly TimeSpan RedrawInterval = TimeSpan.FromMilliseconds(100);

    internal const string EraseLine = "\u001b[2K";
    internal const string CursorUp = "\u001b[1A";
    internal const string HideCursor = "\u001b[?25l";
    internal const string ShowCursor = "\u001b[?25h";

    private const int BarWidth = 20;

    private readonly Lock _gate = new();
    private readonly TextWriter _writer;
    private readonly TimeProvider _time;
    private readonly int _width;
    private readonly ProgressPlan _plan;
    private readonly ITimer _timer;
    private string _suite = "bench";
    private ProgressStep? _step;
    private LiveReading _stepStartReading;
    private string? _detail;
    private bool _rowHeaderWritten;
    private int _drawnLines;
    private bool _cursorHidden;
    private bool _completed;

    /// <param name="writer">The terminal.</param>
    /// <param name="width">Its width in columns: live lines are cut to fit, so that none wraps and cursor-up finds them all.</param>
    /// <param name="time">The clock and the redraw timer; the system's by default.</param>
    public TerminalProgress(TextWriter writer, int width, TimeProvider? time = null)
    {
        ArgumentNullException.ThrowIfNull(writer);
        _writer = writer;
        _width = Math.Max(20, width);
        _time = time ?? TimeProvider.System;
        _plan = new ProgressPlan(_time);
        _plan.Start(0, _time.GetTimestamp());
        _timer = _time.CreateTimer(static state => ((TerminalProgress)state!).Redraw(), this, RedrawInterval, RedrawInterval);
    }

    public LiveCounters Live { get; private set; } = new();

    public void SuiteStarted(string suite, string header, double plannedSeconds)
    {
        ArgumentNullException.ThrowIfNull(suite);
        ArgumentNullException.ThrowIfNull(header);
        lock (_gate)
        {
            _suite = suite;
            _step = null;
            _detail = null;
            _rowHeaderWritten = false;
            Live = new LiveCounters();
            _plan.Start(plannedSeconds, _time.GetTimestamp());
            WritePermanent(header);
        }
    }

    public void StepStarted(ProgressStep step)
    {
        ArgumentNullException.ThrowIfNull(step);
        lock (_gate)
        {
            _plan.Step(step.PlannedSeconds, _time.GetTimestamp());
            _step = step;
            _stepStartReading = Live.Read();
            _detail = null;
        }
    }

    /// <summary>A run's end shows in the estimate of the time left, not as a line.</summary>
    public void RunFinished(int run, int runs, TimeSpan elapsed)
    {
    }

    public void RowFinished(ScenarioResult row)
    {
        ArgumentNullException.ThrowIfNull(row);
        lock (_gate)
        {
            if (!_rowHeaderWritten)
            {
                WritePermanent(ProgressText.RowHeader);
                _rowHeaderWritten = true;
            }

            WritePermanent(ProgressText.Row(row));
        }
    }

    public void Line(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        lock (_gate)
        {
            WritePermanent(text);
        }
    }

    /// <summary>Shown at the end of the live line until the next detail or step.</summary>
    public void Detail(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        lock (_gate)
        {
            _detail = ProgressText.Sanitize(text.Trim()).Replace('\n', ' ');
        }
    }

    public void SuiteFinished()
    {
        lock (_gate)
        {
            var elapsed = _plan.Estimate(_time.GetTimestamp()).Elapsed;
            _step = null;
            WritePermanent(ProgressText.SuiteDone(_suite, elapsed));
        }
    }

    public void Complete()
    {
        lock (_gate)
        {
            if (_completed)
            {
                return;
            }

            _completed = true;
            _step = null;
            EraseLive();
            if (_cursorHidden)
            {
                _writer.Write(ShowCursor);
                _cursorHidden = false;
            }

            _writer.Flush();
        }

        _timer.Dispose();
    }

    public void Dispose() => Complete();

    /// <summary>The timer's work: the live lines drawn anew. Never called from a measuring loop.</summary>
    internal void Redraw()
    {
        lock (_gate)
        {
            if (_completed || _step is null)
            {
                return;
            }

            try
            {
                EraseLive();
                DrawLive();
                _writer.Flush();
            }
            catch (IOException)
            {
                // The terminal went away (a closed pipe after a hang-up): nothing left to show progress on.
            }
        }
    }

    /// <summary>The two live lines as they would be drawn now.</summary>
    internal (string Step, string Bar) LiveLines()
    {
        var step = _step!;
        var now = _time.GetTimestamp();
        var estimate = _plan.Estimate(now);
        var reading = Live.Read();
        var stepSeconds = estimate.StepElapsed.TotalSeconds;
        var done = step.Unit == ProgressUnit.Bytes ? reading.Bytes - _stepStartReading.Bytes : reading.Done - _stepStartReading.Done;

        // A rate over less than a tenth of a second, or over nothing yet, says nothing.
        double? rate = stepSeconds >= 0.1 && done > 0 ? done / stepSeconds : null;
        var filled = (int)Math.Round(estimate.Fraction * BarWidth);
        var bar = new StringBuilder(160)
            .Append('[').Append('█', filled).Append('░', BarWidth - filled).Append("] ")
            .Append(CultureInfo.InvariantCulture, $"{estimate.Fraction * 100,3:0}%  ")
            .Append(ProgressText.Duration(estimate.Elapsed)).Append(" / ").Append(ProgressText.Remaining(estimate.Remaining)).Append(" left  ")
            .Append(ProgressText.Rate(rate, step.Unit))
            .Append(CultureInfo.InvariantCulture, $"  verified {reading.Verified:#,0}/{reading.Done:#,0}");
        if (reading.Failed > 0)
        {
            bar.Append(CultureInfo.InvariantCulture, $"  FAILED {reading.Failed:#,0}");
        }

        if (_detail is { Length: > 0 } detail)
        {
            bar.Append("  ").Append(detail);
        }

        return (Fit(ProgressText.Sanitize($"{_suite}  {step.Id} ({step.Label})  {step.Phase}")), Fit(bar.ToString()));
    }

    /// <summary>A line that stays: the live lines are erased and the line written in their place; the next tick draws them below it.</summary>
    private void WritePermanent(string text)
    {
        EraseLive();
        _writer.Write(ProgressText.Sanitize(text) + "\n");
        _writer.Flush();
    }

    /// <summary>The live lines, without a final line feed: the cursor stays at the end of the last one.</summary>
    private void DrawLive()
    {
        var (step, bar) = LiveLines();
        if (!_cursorHidden)
        {
            _writer.Write(HideCursor);
            _cursorHidden = true;
        }

        _writer.Write(step);
        _writer.Write('\n');
        _writer.Write(bar);
        _drawnLines = 2;
    }

    /// <summary>Erases the live lines bottom up and leaves the cursor at the start of the first.</summary>
    private void EraseLive()
    {
        if (_drawnLines == 0)
        {
            return;
        }

        _writer.Write('\r');
        _writer.Write(EraseLine);
        for (var line = 1; line < _drawnLines; line++)
        {
            _writer.Write(CursorUp);
            _writer.Write(EraseLine);
        }

        _drawnLines = 0;
    }

    /// <summary>Cut to one column less than the width: a line that fills the last column wraps on some terminals.</summary>
    private string Fit(string line) => line.Length < _width ? line : line[..(_width - 2)] + "…";
}
