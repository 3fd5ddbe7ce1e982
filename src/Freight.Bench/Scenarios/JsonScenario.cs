namespace Freight.Bench.Scenarios;

/// <summary>
/// One row of the json suite (study 2): a lab JSON endpoint (<c>json/newtonsoft-buffered</c>, …) asked for
/// <see cref="Records"/> records by <see cref="Concurrency"/> clients at once.
/// </summary>
public sealed record JsonScenario(string Id, int Concurrency, int Records, PublishedFigure? Published = null)
{
    public string Describe() => $"{Records / 1000}k records c={Concurrency}";
}
