namespace Freight.Bench.Reports.Output;

/// <summary>
/// What <c>freight report</c> writes, whatever the format: the runs' machine and settings, per study its charts and
/// tables, the ratios, and the comparison when several files are given. Built by <see cref="ReportBuilder"/>.
/// </summary>
public sealed record ReportModel(string Title, IReadOnlyList<string> Files, IReadOnlyList<ReportSection> Sections)
{
    public IEnumerable<ReportTable> Tables => Sections.SelectMany(s => s.Figures).Select(f => f.Table);

    public IEnumerable<ReportChart> Charts => Sections.SelectMany(s => s.Figures).Select(f => f.Chart).OfType<ReportChart>();
}
