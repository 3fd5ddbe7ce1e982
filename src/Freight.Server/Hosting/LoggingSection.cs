using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Logging;

namespace Freight.Server.Hosting;

/// <summary>
/// The levels of the <c>Logging</c> section, checked before the host reads them: <c>Logging:LogLevel:*</c> and a
/// provider's <c>Logging:{Provider}:LogLevel:*</c>, the keys ASP.NET Core's logging filters read. The host threw its
/// InvalidOperationException with a stack (exit 1) for a level it does not know, <c>Informaton</c>; here it is one
/// <c>error:</c> line naming the key, as any invalid option (exit 2).
/// </summary>
internal static class LoggingSection
{
    public const string Name = "Logging";

    private const string LogLevel = "LogLevel";

    public static void Check(IConfiguration configuration, List<string> failures)
    {
        foreach (var child in configuration.GetSection(Name).GetChildren())
        {
            var levels = child.Key.Equals(LogLevel, StringComparison.OrdinalIgnoreCase) ? child : child.GetSection(LogLevel);
            foreach (var level in levels.GetChildren())
            {
                // As the host parses them (LoggerFilterConfigureOptions): case-insensitive, an empty value ignored.
                if (!string.IsNullOrEmpty(level.Value) && !Enum.TryParse<LogLevel>(level.Value, ignoreCase: true, out _))
                {
                    failures.Add($"{level.Path}: '{level.Value}' is not a log level ({string.Join(", ", Enum.GetNames<LogLevel>())}).");
                }
            }
        }
    }
}
