namespace Freight.Bench.Results;

/// <summary>
/// How the run was set up; <paramref name="Store"/> is the files suite's store (<c>fs</c> or <c>s3</c>), <paramref name="S3Server"/> the S3 server
/// behind it; <paramref name="Full"/> whether every suite ran its whole matrix (--full) or its headline rows;
/// <paramref name="Filter"/> the --filter that kept some of them (null: none).
/// </summary>
public sealed record BenchSettings(
    IReadOnlyList<string> Suites,
    bool Quick,
    int Runs,
    double RunSeconds,
    double WarmupSeconds,
    long PayloadBytes,
    bool CpuAffinity,
    string Target,
    string Store = "fs",
    string? S3Server = null,
    bool Full = false,
    string? Filter = null);
