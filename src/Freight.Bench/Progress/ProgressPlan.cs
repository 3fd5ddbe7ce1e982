namespace Freight.Bench.Progress;

/// <summary>
/// How far a suite is and how long it has left. Each step is planned to take some seconds (a run of ≥ 1 s, a
/// ramp of 20 s); the steps finished so far say how long a planned second really takes on this machine (a
/// 20 MiB transfer overshoots a 0.25 s run, a fresh server takes a moment to start), and the rest of the plan is
/// scaled by that. It is an estimate, shown with "~".
/// </summary>
/// <remarks>Not thread-safe: its owner holds a lock around it.</remarks>
internal sealed class ProgressPlan(TimeProvider time)
{
    private double _plannedSeconds;
    private double _plannedDone;
    private double _stepPlanned;
    private long _suiteStart;
    private long _firstStepStart;
    private long _stepStart;
    private bool _inStep;

    /// <summary>A suite begins at <paramref name="now"/>, planned to take <paramref name="plannedSeconds"/> over all its steps.</summary>
    public void Start(double plannedSeconds, long now)
    {
        _plannedSeconds = Math.Max(0, plannedSeconds);
        _plannedDone = 0;
        _stepPlanned = 0;
        _suiteStart = now;
        _inStep = false;
    }

    /// <summary>The next step begins at <paramref name="now"/>; the one before it is done.</summary>
    public void Step(double plannedSeconds, long now)
    {
        if (_inStep)
        {
            _plannedDone += _stepPlanned;
        }
        else
        {
            // Setting up (servers, payloads) before the first step is no step's time: the scale starts here.
            _firstStepStart = now;
        }

        _stepPlanned = Math.Max(0, plannedSeconds);
        _stepStart = now;
        _inStep = true;
    }

    /// <summary>The time since the suite began, the step's share of it, and the estimated time left.</summary>
    public ProgressEstimate Estimate(long now)
    {
        var elapsed = time.GetElapsedTime(_suiteStart, now);
        if (!_inStep)
        {
            return new ProgressEstimate(elapsed, TimeSpan.Zero, TimeSpan.FromSeconds(_plannedSeconds));
        }

        var stepElapsed = time.GetElapsedTime(_stepStart, now);
        var measured = time.GetElapsedTime(_firstStepStart, _stepStart).TotalSeconds;
        var scale = _plannedDone > 0 && measured > 0 ? measured / _plannedDone : 1;
        var thisStep = Math.Max(0, (_stepPlanned * scale) - stepElapsed.TotalSeconds);
        var later = Math.Max(0, _plannedSeconds - _plannedDone - _stepPlanned) * scale;
        return new ProgressEstimate(elapsed, stepElapsed, TimeSpan.FromSeconds(thisStep + later));
    }
}
