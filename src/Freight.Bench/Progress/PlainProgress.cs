using System.Globalization;
using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Progress;

/// <summary>
/// Progress as plain lines, for logs (CI, a redirected stdout, <c>--no-progress</c>): the suite's header, one line
/// when each scenario begins, one per interleaved run with the estimated time left, one per finished row under a
/// header, and the messages. Nothing is redrawn, and no control character but the line feed is ever written.
/// </summary>
public sealed class PlainProgress : IBenchProgress
{
    private readonly Lock _gate = new();
    private readonly TextWriter _writer;
    private readonly TimeProvider _time;
    private readonly ProgressPlan _plan;
    private string _suite = "bench";
    private bool _rowHeaderWritten;

    public PlainProgress(TextWriter writer, TimeProvider? time = null)
    {
        ArgumentNullException.ThrowIfNull(writer);
        _writer = writer;
        _time = time ?? TimeProvider.System;
        _plan = new ProgressPlan(_time);
        _plan.Start(0, _time.GetTimestamp());
    }

    public LiveCounters Live { get; private set; } = new();

    public void SuiteStarted(string suite, string header, double plannedSeconds)
    {
        ArgumentNullException.ThrowIfNull(suite);
        ArgumentNullException.ThrowIfNull(header);
        lock (_gate)
        {
            _suite = suite;
            _rowHeaderWritten = false;
            Live = new LiveCounters();
            _plan.Start(plannedSeconds, _time.GetTimestamp());
            Write(header);
        }
    }

    public void StepStarted(ProgressStep step)
    {
        ArgumentNullException.ThrowIfNull(step);
        lock (_gate)
        {
            _plan.Step(step.PlannedSeconds, _time.GetTimestamp());
            if (step.Begins)
            {
                Write($"{_suite}: {step.Id} ({step.Label}) {step.Phase} …");
            }
        }
    }

    public void RunFinished(int run, int runs, TimeSpan elapsed)
    {
        lock (_gate)
        {
            var left = run < runs ? $", {ProgressText.Remaining(_plan.Estimate(_time.GetTimestamp()).Remaining)} left" : "";
            Write(string.Create(CultureInfo.InvariantCulture, $"{_suite} run {run}/{runs} done in {elapsed.TotalSeconds:0.0} s{left}"));
        }
    }

    public void RowFinished(ScenarioResult row)
    {
        ArgumentNullException.ThrowIfNull(row);
        lock (_gate)
        {
            if (!_rowHeaderWritten)
            {
                Write(ProgressText.RowHeader);
                _rowHeaderWritten = true;
            }

            Write(ProgressText.Row(row));
        }
    }

    public void Line(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        lock (_gate)
        {
            Write(text);
        }
    }

    public void Detail(string text) => Line(text);

    public void SuiteFinished()
    {
        lock (_gate)
        {
            Write(ProgressText.SuiteDone(_suite, _plan.Estimate(_time.GetTimestamp()).Elapsed));
        }
    }

    public void Complete()
    {
        lock (_gate)
        {
            _writer.Flush();
        }
    }

    public void Dispose() => Complete();

    private void Write(string text) => _writer.Write(ProgressText.Sanitize(text) + "\n");
}
