using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Suites.Static;

/// <summary>
/// One row of the static suite: a way of serving a file (<see cref="Id"/>: <c>static/staticfiles</c>,
/// <c>static/results-file</c>, <c>static/freight</c> or <c>peer/nginx</c>), the file's size, the keep-alive
/// connections, and the load generator (<c>engine</c>, Freight's, or <c>wrk</c>, as a second opinion).
/// <see cref="AaCopy"/> marks the suite's A/A control, measured again under <see cref="RowId"/>.
/// </summary>
public sealed record StaticScenario(string Id, long FileBytes, int Connections, string Generator = StaticScenario.Engine, PublishedFigure? Published = null, bool AaCopy = false)
{
    /// <summary>The row's id: <see cref="Id"/>, or its A/A copy's (<c>static/freight#a</c>).</summary>
    public string RowId => AaCopy ? Verdicts.AaControl.CopyId(Id) : Id;

    public const string Engine = "engine";
    public const string Wrk = "wrk";

    /// <summary>Served by nginx rather than by the Freight server.</summary>
    public bool IsPeer => Id == StaticSuite.Nginx;

    /// <summary>Path of the file on its server: the lab's route, or nginx's root.</summary>
    public string Path => IsPeer
        ? $"/{FileName}"
        : $"/lab/{Id}/{FileName}";

    public string FileName => FormattableString.Invariant($"{FileBytes}.bin");

    public string Describe() => $"{Reports.SizeText.Format(FileBytes)}, {Connections} conns{(Generator == Wrk ? ", wrk" : "")}";
}
