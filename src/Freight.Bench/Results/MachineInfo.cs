namespace Freight.Bench.Results;

/// <summary>The machine a run measured on: its CPUs, operating system, .NET runtime and processor model.</summary>
public sealed record MachineInfo(int Cpus, string Os, string Runtime, string Processor)
{
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
            System.Runtime.InteropServices.RuntimeInformation.FrameworkDescription, processor);
    }
}
