namespace Freight.Bench.Suites.Tus;

/// <summary>
/// <c>--suite tus</c> (issue 7): resumable uploads by tus 1.0 to Freight (<c>upload/tus</c>) and to
/// @tus/server with its file store (<c>peer/tus-node</c>, when Node is installed), driven by the same client
/// in the same run, at every payload size and chunk size, beside the files API's single PUT
/// (<c>files/put</c>) of the largest payload: what chunking costs over one request.
/// </summary>
public static class TusSuite
{
    public const string Name = "tus";

    public const string Upload = "upload/tus";
    public const string NodePeer = "peer/tus-node";
    public const string Put = "files/put";

    /// <summary>The chunk size the goals are stated at.</summary>
    public const int GoalChunkBytes = 16 << 20;

    /// <summary>20 MiB (study 1's payload) and 1 GiB (the files suite's large file); --quick: 20 MiB and 256 MiB.</summary>
    public static IReadOnlyList<long> Sizes(bool quick) => quick ? [20L << 20, 256L << 20] : [20L << 20, 1L << 30];

    /// <summary>
    /// 4, 16 and 64 MiB (issue 7): from many small requests, where per-PATCH costs show, to few large ones;
    /// --quick: 16 MiB, the goals' size.
    /// </summary>
    public static IReadOnlyList<int> ChunkSizes(bool quick) => quick ? [GoalChunkBytes] : [4 << 20, GoalChunkBytes, 64 << 20];

    /// <summary>
    /// Every row: upload/tus and peer/tus-node at each size × chunk size, files/put at the largest size.
    /// <paramref name="sizes"/> replaces the sizes (--size: one size).
    /// </summary>
    public static IReadOnlyList<TusScenario> Create(bool quick, IReadOnlyList<long>? sizes = null)
    {
        sizes ??= Sizes(quick);
        var scenarios = new List<TusScenario> { new(Put, sizes.Max(), null) };
        foreach (var size in sizes)
        {
            foreach (var chunk in ChunkSizes(quick))
            {
                scenarios.Add(new TusScenario(Upload, size, chunk));
                scenarios.Add(new TusScenario(NodePeer, size, chunk));
            }
        }

        // The A/A control, last in each pass: files/put of the largest payload, the denominator of one goal and the
        // fastest upload of the suite (one request, no per-PATCH cost), so the cheapest copy of an upload of the
        // goals' size, whose noise (a disk write of that size) is the goal rows'.
        scenarios.Add(new TusScenario(Put, sizes.Max(), null, AaCopy: true));
        return scenarios;
    }
}
