namespace Freight.Bench.Reports.Output;

/// <summary>A part of the report: the runs, a study (suite) of one file, its ratios, or the comparison of the files.</summary>
public sealed record ReportSection(string Id, string Title, string Note, IReadOnlyList<ReportFigure> Figures, IReadOnlyList<string> Notes);
