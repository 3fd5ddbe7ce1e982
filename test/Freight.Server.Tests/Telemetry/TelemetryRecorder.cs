using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using Freight.Telemetry;

namespace Freight.Server.Tests.Telemetry;

/// <summary>
/// What Freight's meter and activity source report while it is alive, through a real <see cref="MeterListener"/> and
/// <see cref="ActivityListener"/>: the tests read sums, counts and stopped activities from it. The meter is
/// process-wide, so its users run alone (<see cref="TelemetryCollection"/>); activities are also told apart by key.
/// </summary>
internal sealed class TelemetryRecorder : IDisposable
{
    private readonly MeterListener _meters = new();
    private readonly ActivityListener _activities;
    private readonly ConcurrentQueue<Measurement> _measurements = new();
    private readonly ConcurrentQueue<StoppedActivity> _stopped = new();

    public TelemetryRecorder()
    {
        _meters.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == FreightTelemetry.Name)
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _meters.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Record(instrument, value, tags));
        _meters.SetMeasurementEventCallback<double>((instrument, value, tags, _) => Record(instrument, value, tags));
        _meters.Start();

        _activities = new ActivityListener
        {
            ShouldListenTo = source => source.Name == FreightTelemetry.Name,
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            // What an exporter gets: the activity as it stopped, not tags set on it afterwards.
            ActivityStopped = activity => _stopped.Enqueue(new StoppedActivity(
                activity.OperationName, activity.TagObjects.ToDictionary(tag => tag.Key, tag => tag.Value), activity.Status, activity.SpanId, activity.ParentSpanId)),
        };
        ActivitySource.AddActivityListener(_activities);
    }

    /// <summary>The sum of <paramref name="instrument"/>'s measurements that carry every one of <paramref name="tags"/>.</summary>
    public double Sum(string instrument, params (string Name, string Value)[] tags) =>
        Matching(instrument, tags).Sum(measurement => measurement.Value);

    /// <summary>How many measurements of <paramref name="instrument"/> carry every one of <paramref name="tags"/> (a histogram's count).</summary>
    public int Count(string instrument, params (string Name, string Value)[] tags) =>
        Matching(instrument, tags).Count();

    /// <summary>The stopped activities named <paramref name="name"/> whose <c>freight.key</c> is <paramref name="key"/>.</summary>
    public IReadOnlyList<StoppedActivity> Activities(string name, string? key) =>
        _stopped.Where(activity => activity.Name == name && (string?)activity.Tag(FreightTelemetry.KeyTag) == key).ToList();

    public void Dispose()
    {
        _activities.Dispose();
        _meters.Dispose();
    }

    private void Record(Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        var copied = new Dictionary<string, string?>();
        foreach (var (name, tagValue) in tags)
        {
            copied[name] = tagValue?.ToString();
        }

        _measurements.Enqueue(new Measurement(instrument.Name, value, copied));
    }

    private IEnumerable<Measurement> Matching(string instrument, (string Name, string Value)[] tags) =>
        _measurements.Where(measurement => measurement.Instrument == instrument
            && tags.All(tag => measurement.Tags.TryGetValue(tag.Name, out var value) && value == tag.Value));

    /// <summary>An activity as its listener saw it stop.</summary>
    public sealed record StoppedActivity(string Name, Dictionary<string, object?> Tags, ActivityStatusCode Status, ActivitySpanId SpanId, ActivitySpanId ParentSpanId)
    {
        public object? Tag(string name) => Tags.GetValueOrDefault(name);
    }

    private sealed record Measurement(string Instrument, double Value, Dictionary<string, string?> Tags);
}

/// <summary>Tests that listen to Freight's meter: it is one per process, so they run after the others, one at a time.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class TelemetryCollection
{
    public const string Name = "Telemetry";
}
