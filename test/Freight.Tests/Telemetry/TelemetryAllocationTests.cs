using System.Diagnostics.Metrics;
using Freight.Telemetry;

namespace Freight.Tests.Telemetry;

/// <summary>
/// What the instruments add to the copy loops: a counter's <c>Add</c> per chunk allocates nothing, listened to or
/// not, and a timed store call allocates nothing when no one listens to the activity source. "Nothing per call":
/// fewer bytes over <see cref="Calls"/> calls than calls, as one-off work of the runtime can land inside the window
/// (24 bytes once was seen here); one object per call would be at least 24 bytes a call.
/// </summary>
public sealed class TelemetryAllocationTests
{
    private const int Calls = 10_000;

    [Fact]
    public void UploadBytesAdd_NoListener_AllocatesNothingPerCall()
    {
        Assert.InRange(AllocatedByAdds(), 0, Calls - 1);
    }

    [Fact]
    public void UploadBytesAdd_MeterListenerEnabled_AllocatesNothingPerCall()
    {
        long seen = 0;
        using var listener = new MeterListener
        {
            InstrumentPublished = (instrument, meters) =>
            {
                if (instrument.Meter.Name == FreightTelemetry.Name)
                {
                    meters.EnableMeasurementEvents(instrument);
                }
            },
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, _, _) =>
        {
            if (instrument.Name == "freight.upload.bytes")
            {
                Interlocked.Add(ref seen, value);
            }
        });
        listener.Start();

        var allocated = AllocatedByAdds();

        Assert.InRange(allocated, 0, Calls - 1);
        // The listener did see them (the warm-up's too): the measurement was not skipped.
        Assert.True(Interlocked.Read(ref seen) >= (long)Calls * 256 * 1024);
    }

    [Fact]
    public void StoreOperation_NoActivityListener_AllocatesNothingPerCall()
    {
        var kind = StoreOperation.KindOf(new Freight.Storage.MemoryObjectStore(), "ObjectStore");
        Assert.Equal("memory", kind.Value);
        for (var i = 0; i < 100; i++)
        {
            StoreOperation.Start(kind, StoreOperation.Commit, "a/b").Succeeded();
        }

        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 0; i < Calls; i++)
        {
            StoreOperation.Start(kind, StoreOperation.Commit, "a/b").Succeeded();
        }

        Assert.InRange(GC.GetAllocatedBytesForCurrentThread() - before, 0, Calls - 1);
    }

    private static long AllocatedByAdds()
    {
        // Warm-up: the first calls may load and compile what the measured ones use.
        for (var i = 0; i < 100; i++)
        {
            FreightTelemetry.UploadBytes.Add(256 * 1024, FreightTelemetry.Put);
        }

        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 0; i < Calls; i++)
        {
            FreightTelemetry.UploadBytes.Add(256 * 1024, FreightTelemetry.Put);
            FreightTelemetry.DownloadBytes.Add(64 * 1024);
        }

        return GC.GetAllocatedBytesForCurrentThread() - before;
    }
}
