namespace Freight.Lab.Metrics;

/// <summary>Options of <see cref="RuntimeSampler"/>.</summary>
public sealed class RuntimeSamplerOptions
{
    /// <summary>
    /// Time between samples; one second by default, the resolution of the bench's per-second series
    /// (issue 4 asks for at least one sample a second).
    /// </summary>
    public TimeSpan Period { get; set; } = TimeSpan.FromSeconds(1);

    /// <summary>
    /// Samples kept, oldest dropped first; 3600 by default: an hour at one a second, about 0.5 MB.
    /// A poller that falls further behind than this loses the oldest samples (the sequence gap shows it).
    /// </summary>
    public int Capacity { get; set; } = 3600;
}
