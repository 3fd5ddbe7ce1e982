using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Suites.Json;

/// <summary>
/// One row of the json suite (study 2): a lab JSON endpoint (<c>json/newtonsoft-buffered</c>, …) asked for
/// <see cref="Records"/> records by <see cref="Concurrency"/> clients at once. <see cref="AaCopy"/> marks the suite's
/// A/A control, measured again under <see cref="RowId"/>.
/// </summary>
public sealed record JsonScenario(string Id, int Concurrency, int Records, PublishedFigure? Published = null, bool AaCopy = false)
{
    /// <summary>The row's id: <see cref="Id"/> (the lab endpoint), or its A/A copy's (<c>json/stj#a</c>).</summary>
    public string RowId => AaCopy ? Verdicts.AaControl.CopyId(Id) : Id;

    public string Describe() => $"{Records / 1000}k records c={Concurrency}";
}
