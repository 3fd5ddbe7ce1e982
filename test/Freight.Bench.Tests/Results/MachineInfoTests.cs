using System.Runtime.Intrinsics;
using System.Text.Json;
using Freight.Bench.Results;

namespace Freight.Bench.Tests.Results;

/// <summary>The machine block of the result JSON: the vector width a run's parsers and hashes had, and older files without it.</summary>
public sealed class MachineInfoTests
{
    [Fact]
    public void Current_VectorBits_IsTheWidestVectorTheRuntimeAccelerates()
    {
        var expected = Vector512.IsHardwareAccelerated ? 512 : Vector256.IsHardwareAccelerated ? 256 : Vector128.IsHardwareAccelerated ? 128 : 0;

        Assert.Equal(expected, MachineInfo.Current().VectorBits);
    }

    [Fact]
    public void Json_VectorBits_WrittenAsVectorBitsAndReadBack()
    {
        var machine = new MachineInfo(2, "linux", ".NET 10", "cpu") { VectorBits = 256 };

        var json = JsonSerializer.Serialize(machine, BenchReport.JsonOptions);

        Assert.Contains("\"vectorBits\": 256", json, StringComparison.Ordinal);
        Assert.Equal(machine, JsonSerializer.Deserialize<MachineInfo>(json, BenchReport.JsonOptions));
    }

    [Fact]
    public void Json_FromARunBeforeTheField_ReadsWithoutVectorBits()
    {
        var machine = JsonSerializer.Deserialize<MachineInfo>("""{ "cpus": 2, "os": "linux", "runtime": ".NET 10", "processor": "cpu" }""", BenchReport.JsonOptions);

        Assert.NotNull(machine);
        Assert.Null(machine.VectorBits);
        Assert.DoesNotContain("vectorBits", JsonSerializer.Serialize(machine, BenchReport.JsonOptions), StringComparison.Ordinal);
    }
}
