using System.Runtime.Intrinsics;

namespace Freight.Bench.Results;

/// <summary>The machine a run measured on: its CPUs, operating system, .NET runtime and processor model.</summary>
public sealed record MachineInfo(int Cpus, string Os, string Runtime, string Processor)
{
    /// <summary>
    /// The widest vector the runtime accelerates here (512 with AVX-512, 256 with AVX2 alone), null in runs from before
    /// it was recorded. The parsers' and hashes' bytes a second follow it: the same EPYC model name read the micro
    /// suite's large multipart parts at 18–22 GB/s a core on an AVX-512 host and 7.4–7.8 on an AVX2-only one
    /// (docs/results/2026-11-27-default-three.md).
    /// </summary>
    public int? VectorBits { get; init; }

    public static MachineInfo Current()
    {
        var processor = "unknown";
        try
        {
            processor = File.ReadLines("/proc/cpuinfo").FirstOrDefault(l => l.StartsWith("model name", StringComparison.Ordinal))?.Split(':', 2)[1].Trim() ?? processor;
        }
        catch (IOException)
        {
        }

        return new MachineInfo(Environment.ProcessorCount, System.Runtime.InteropServices.RuntimeInformation.OSDescription,
            System.Runtime.InteropServices.RuntimeInformation.FrameworkDescription, processor)
        {
            VectorBits = Vector512.IsHardwareAccelerated ? 512 : Vector256.IsHardwareAccelerated ? 256 : Vector128.IsHardwareAccelerated ? 128 : 0,
        };
    }
}
