namespace Freight.Bench.Suites.Micro;

/// <summary>
/// <c>--suite micro</c>: BenchmarkDotNet over the hot paths that need no socket (bench/Freight.Micro) — Freight's
/// multipart parser against ASP.NET Core's MultipartReader on a normal 20 MiB body and six hostile ones of the same
/// size, Range and digest-field parsing, storage-key validation, XXH3-128 and SHA-256. Opt-in: it measures code, not
/// the server, and its default job alone runs for tens of minutes.
/// </summary>
public static class MicroSuite
{
    public const string Name = "micro";

    /// <summary>The project the suite runs, relative to the repository root.</summary>
    public static readonly string ProjectDirectory = Path.Combine("bench", "Freight.Micro");

    public const string ShortJob = "short";
    public const string DefaultJob = "default";

    public static IReadOnlyList<string> Jobs { get; } = [ShortJob, DefaultJob];

    public const string FreightParser = "multipart-freight";
    public const string AspNetCoreParser = "multipart-aspnetcore";

    /// <summary>The normal body: the hostile ones are compared with it.</summary>
    public const string NormalBody = "large-parts";

    /// <summary>The hostile bodies, as bench/Freight.Micro names them (Multipart/MultipartBodyInput.cs).</summary>
    public static IReadOnlyList<string> HostileBodies { get; } = ["crlf-flood", "near-boundary", "lookalikes", "dense-lookalikes", "anchored-lookalikes", "tiny-parts"];

    /// <summary>
    /// Issue 19: Freight's parser reads a 20 MiB body of large parts at ≥ 10 GB/s a core (ASP.NET Core's vectorized
    /// MultipartReader does ~10–13 GB/s in its own benchmark, aspnetcore#51426).
    /// </summary>
    public const double ParserGoalGigabytesPerSecond = 10;

    /// <summary>Issue 19: no hostile body takes more than 10× the time of the normal body of the same size.</summary>
    public const double HostileSlowdownGoal = 10;

    public static string Id(string benchmark, string input) => $"micro/{benchmark}/{input}";
}
