namespace Freight.Micro;

/// <summary>The command line of bench/Freight.Micro (<see cref="Usage"/>).</summary>
public sealed record MicroOptions
{
    public const string ShortJob = "short";
    public const string DefaultJob = "default";

    public const string Usage = """
        usage: dotnet run -c Release --project bench/Freight.Micro -- [--job short|default] [--artifacts DIR] [--filter TEXT] [--list]
          --job short|default  short (default): 2 warm-ups and 5 iterations of 0.15 CPU-s a case, the whole suite in about
                               2 minutes on an idle 2-core machine; default: BenchmarkDotNet's own counts (iterations until
                               the mean is steady: tens of minutes). Both run in this process and count thread CPU time.
          --artifacts DIR      where BenchmarkDotNet writes its reports and micro-run.json (default freight-results/micro)
          --filter TEXT        only cases whose id (micro/{benchmark}/{input}) contains TEXT
          --list               print the case ids and exit
        """;

    public string Job { get; init; } = ShortJob;

    public string ArtifactsDirectory { get; init; } = Path.GetFullPath(Path.Combine("freight-results", "micro"));

    public string? Filter { get; init; }

    public bool List { get; init; }

    /// <summary>Parses the command line; null and an error when it is not valid.</summary>
    public static MicroOptions? Parse(IReadOnlyList<string> args, out string? error)
    {
        ArgumentNullException.ThrowIfNull(args);
        error = null;
        var options = new MicroOptions();
        for (var i = 0; i < args.Count; i++)
        {
            var needsValue = args[i] is "--job" or "--artifacts" or "--filter";
            if (needsValue && i + 1 >= args.Count)
            {
                error = $"{args[i]} needs a value.";
                return null;
            }

            switch (args[i])
            {
                case "--job" when args[i + 1] is ShortJob or DefaultJob:
                    options = options with { Job = args[++i] };
                    break;
                case "--job":
                    error = $"unknown job '{args[i + 1]}'; jobs: {ShortJob}, {DefaultJob}.";
                    return null;
                case "--artifacts":
                    options = options with { ArtifactsDirectory = Path.GetFullPath(args[++i]) };
                    break;
                case "--filter":
                    options = options with { Filter = args[++i] };
                    break;
                case "--list":
                    options = options with { List = true };
                    break;
                default:
                    error = $"unknown option '{args[i]}'.";
                    return null;
            }
        }

        return options;
    }
}
