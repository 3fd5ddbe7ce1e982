namespace Freight.Lab.Text;

/// <summary>
/// The known name a mistyped one most likely meant, for "did you mean …?": serve's settings (an unknown key of
/// appsettings.json or FREIGHT_…) and the freight commands' options (<c>--expect-staus</c>) ask it alike.
/// </summary>
public static class ClosestName
{
    /// <summary>
    /// The name among <paramref name="known"/> that <paramref name="given"/> is likely a typo of, ignoring case: at most a
    /// few edits away (a third of its length, from 1 up to 3), the nearest first; null when none is that near.
    /// </summary>
    public static string? Find(string given, IEnumerable<string> known)
    {
        ArgumentNullException.ThrowIfNull(given);
        ArgumentNullException.ThrowIfNull(known);
        string? closest = null;
        var best = Math.Clamp(given.Length / 3, 1, 3) + 1;
        foreach (var name in known)
        {
            var distance = Distance(given, name);
            if (distance < best)
            {
                best = distance;
                closest = name;
            }
        }

        return closest;
    }

    /// <summary>Levenshtein distance, ignoring case.</summary>
    private static int Distance(string a, string b)
    {
        var previous = new int[b.Length + 1];
        var current = new int[b.Length + 1];
        for (var j = 0; j <= b.Length; j++)
        {
            previous[j] = j;
        }

        for (var i = 1; i <= a.Length; i++)
        {
            current[0] = i;
            for (var j = 1; j <= b.Length; j++)
            {
                var substitution = char.ToUpperInvariant(a[i - 1]) == char.ToUpperInvariant(b[j - 1]) ? 0 : 1;
                current[j] = Math.Min(Math.Min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + substitution);
            }

            (previous, current) = (current, previous);
        }

        return previous[b.Length];
    }
}
