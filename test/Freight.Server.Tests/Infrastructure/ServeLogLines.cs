using System.Text.RegularExpressions;

namespace Freight.Server.Tests.Infrastructure;

/// <summary>
/// The first line of each entry <c>freight serve</c> logs to the console: its time in UTC, then the level, then the
/// category (<c>2026-11-29T05:30:12.345Z warn: Freight.Files[0]</c>); the message follows on the next lines.
/// </summary>
internal static partial class ServeLogLines
{
    /// <summary>The entry's level as the console writes it (<c>info</c>, <c>warn</c>, <c>fail</c>, …), or null for any other line.</summary>
    public static string? Level(string line) => Head().Match(line) is { Success: true } head ? head.Groups["level"].Value : null;

    /// <summary>An entry at Error or Critical.</summary>
    public static bool IsError(string line) => Level(line) is "fail" or "crit";

    [GeneratedRegex(@"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (?<level>trce|dbug|info|warn|fail|crit): ")]
    private static partial Regex Head();
}
