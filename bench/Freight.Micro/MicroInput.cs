namespace Freight.Micro;

/// <summary>
/// An input of a benchmark (a <c>[ParamsSource]</c> value): its short name, shown in BenchmarkDotNet's tables, and
/// the bytes one operation processes, from which <see cref="GigabytesPerSecondColumn"/> and the result file compute GB/s.
/// </summary>
public abstract class MicroInput
{
    protected MicroInput(string name, string label)
    {
        Name = name;
        Label = label;
    }

    /// <summary>Short and stable: part of the case's id (<c>micro/{benchmark}/{name}</c>).</summary>
    public string Name { get; }

    /// <summary>The input described for a reader of the results.</summary>
    public string Label { get; }

    public abstract long BytesPerOperation { get; }

    public override string ToString() => Name;
}
