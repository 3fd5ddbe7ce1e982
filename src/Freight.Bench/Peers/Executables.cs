namespace Freight.Bench.Peers;

/// <summary>Finds a peer's executable without running a shell.</summary>
internal static class Executables
{
    /// <summary>The first <paramref name="name"/> on PATH, else the first of <paramref name="fallbacks"/> that exists; null when none.</summary>
    public static string? Find(string name, params string[] fallbacks)
    {
        foreach (var directory in (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries))
        {
            var candidate = Path.Combine(directory, name);
            if (File.Exists(candidate))
            {
                return candidate;
            }
        }

        // Debian puts nginx in /usr/sbin, which a non-root PATH often lacks.
        foreach (var fallback in fallbacks)
        {
            if (File.Exists(fallback))
            {
                return fallback;
            }
        }

        return null;
    }
}
