using Freight.Bench.Reports;

namespace Freight.Bench.Suites.Tus;

/// <summary>
/// One row of the tus suite: an upload of one payload size, through Freight's tus endpoint
/// (<c>upload/tus</c>) or @tus/server's (<c>peer/tus-node</c>) in PATCHes of <see cref="ChunkBytes"/>, or
/// through the files API in one PUT (<c>files/put</c>, no chunk size): the same bytes, client and run.
/// <see cref="AaCopy"/> marks the suite's A/A control, measured again under <see cref="RowId"/>.
/// </summary>
public sealed record TusScenario(string Id, long PayloadBytes, int? ChunkBytes, bool AaCopy = false)
{
    /// <summary>The row's id: <see cref="Id"/>, or its A/A copy's (<c>files/put#a</c>).</summary>
    public string RowId => AaCopy ? Verdicts.AaControl.CopyId(Id) : Id;

    public bool IsPeer => Id == TusSuite.NodePeer;

    public string Describe() =>
        $"{SizeText.Format(PayloadBytes)}, http h1, to disk, {(ChunkBytes is { } chunk ? SizeText.Format(chunk) + " chunks" : "one PUT")}";
}
