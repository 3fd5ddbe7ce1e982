using System.Text.Json;
using Freight.Lab.Metrics;

namespace Freight.Tests.Metrics;

/// <summary>
/// The counters behind the crank-style rows. Other test classes run in parallel in this process, so every
/// assertion is a lower bound ("at least one more"), never an exact count.
/// </summary>
public sealed class RuntimeSnapshotTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(10);

    [Fact]
    public void Capture_AfterAForcedGen0Collection_CountsIt()
    {
        var before = RuntimeSnapshot.Capture();

        GC.Collect(0, GCCollectionMode.Forced, blocking: true);
        var after = RuntimeSnapshot.Capture();

        Assert.True(after.Gen0Collections > before.Gen0Collections, $"gen 0: {before.Gen0Collections} then {after.Gen0Collections}");
    }

    [Fact]
    public void TakeSample_AfterAForcedGen0Collection_CountsIt()
    {
        using var sampler = new RuntimeSampler();
        var before = sampler.TakeSample();

        GC.Collect(0, GCCollectionMode.Forced, blocking: true);
        var after = sampler.TakeSample();

        Assert.True(after.Gen0Collections > before.Gen0Collections, $"gen 0: {before.Gen0Collections} then {after.Gen0Collections}");
    }

    [Fact]
    public void Capture_AfterACaughtException_CountsIt()
    {
        var before = RuntimeSnapshot.Capture();

        try
        {
            throw new InvalidOperationException("counted");
        }
        catch (InvalidOperationException)
        {
        }

        var after = RuntimeSnapshot.Capture();
        Assert.True(ExceptionCounter.IsInstalled);
        Assert.True(before.ExceptionCount >= 0);
        Assert.True(after.ExceptionCount >= before.ExceptionCount + 1, $"exceptions: {before.ExceptionCount} then {after.ExceptionCount}");
    }

    [Fact]
    public void TakeSample_AfterACaughtException_CountsIt()
    {
        using var sampler = new RuntimeSampler();
        var before = sampler.TakeSample();

        try
        {
            throw new InvalidOperationException("counted");
        }
        catch (InvalidOperationException)
        {
        }

        var after = sampler.TakeSample();
        Assert.True(after.ExceptionCount >= before.ExceptionCount + 1, $"exceptions: {before.ExceptionCount} then {after.ExceptionCount}");
    }

    [Fact]
    public void Capture_AfterAFullCollection_GenerationSizesAreNonNegativeAndHoldALiveLargeObject()
    {
        // Past the 85,000-byte threshold, so it lives on the large object heap; kept alive across the GC.
        var large = new byte[1024 * 1024];

        GC.Collect(2, GCCollectionMode.Forced, blocking: true);
        var snapshot = RuntimeSnapshot.Capture();
        GC.KeepAlive(large);

        Assert.True(snapshot.Gen0SizeBytes >= 0);
        Assert.True(snapshot.Gen1SizeBytes >= 0);
        Assert.True(snapshot.Gen2SizeBytes >= 0);
        Assert.True(snapshot.PohSizeBytes >= 0);
        Assert.True(snapshot.LohSizeBytes >= large.Length, $"LOH after the GC: {snapshot.LohSizeBytes} bytes");
    }

    [Fact]
    public void TakeSample_AfterACollection_CarriesTheGenerationSizes()
    {
        using var sampler = new RuntimeSampler();
        GC.Collect(0, GCCollectionMode.Forced, blocking: true);

        var sample = sampler.TakeSample();

        Assert.True(sample.Gen0SizeBytes >= 0);
        Assert.True(sample.Gen1SizeBytes >= 0);
        Assert.True(sample.Gen2SizeBytes >= 0);
        Assert.True(sample.LohSizeBytes >= 0);
        Assert.True(sample.PohSizeBytes >= 0);
    }

    [Fact]
    public void Capture_AfterAThreadPoolWorkItem_CountsItCompleted()
    {
        var before = RuntimeSnapshot.Capture();
        using var done = new ManualResetEventSlim();

        ThreadPool.UnsafeQueueUserWorkItem(static state => ((ManualResetEventSlim)state!).Set(), done);
        Assert.True(done.Wait(Patience));

        // The pool counts an item once its callback has returned, a moment after the event is set: wait, bounded.
        var deadline = DateTime.UtcNow + Patience;
        var after = RuntimeSnapshot.Capture();
        while (after.CompletedWorkItems <= before.CompletedWorkItems)
        {
            Assert.True(DateTime.UtcNow < deadline, $"work items: {before.CompletedWorkItems} then {after.CompletedWorkItems}");
            Thread.Sleep(10);
            after = RuntimeSnapshot.Capture();
        }
    }

    [Fact]
    public void Deserialize_JsonFromAServerWithoutTheNewCounters_ReadsThemAsMinusOne()
    {
        // What /lab/metrics answered before exceptions, work items and generation sizes were added.
        const string Json = """
            {"cpuSeconds":1.5,"allocatedBytes":100,"gen0Collections":1,"gen1Collections":0,"gen2Collections":0,"gcHeapBytes":50,
             "workingSetBytes":60,"threadPoolThreads":2,"threadPoolQueueLength":0,"lockContentions":0,"processThreads":9,"diskWriteBytes":0}
            """;

        var snapshot = JsonSerializer.Deserialize<RuntimeSnapshot>(Json, new JsonSerializerOptions(JsonSerializerDefaults.Web));

        Assert.NotNull(snapshot);
        Assert.Equal(100, snapshot.AllocatedBytes);
        Assert.Equal(-1, snapshot.ExceptionCount);
        Assert.Equal(-1, snapshot.CompletedWorkItems);
        Assert.Equal(-1, snapshot.Gen0SizeBytes);
        Assert.Equal(-1, snapshot.PohSizeBytes);
    }

    [Fact]
    public void Serialize_Capture_WritesTheNewCounters()
    {
        var json = JsonSerializer.Serialize(RuntimeSnapshot.Capture(), new JsonSerializerOptions(JsonSerializerDefaults.Web));

        using var document = JsonDocument.Parse(json);
        foreach (var name in new[] { "exceptionCount", "completedWorkItems", "gen0SizeBytes", "gen1SizeBytes", "gen2SizeBytes", "lohSizeBytes", "pohSizeBytes" })
        {
            Assert.True(document.RootElement.GetProperty(name).GetInt64() >= 0, name);
        }
    }
}
