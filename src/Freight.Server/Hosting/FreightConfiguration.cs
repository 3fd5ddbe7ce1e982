using System.Collections;
using Microsoft.Extensions.Configuration;

namespace Freight.Server.Hosting;

/// <summary>Adds Freight's configuration sources in priority order: FREIGHT_ environment variables, then the command line.</summary>
internal static class FreightConfiguration
{
    /// <summary>Short command-line switches for the options people set most.</summary>
    public static readonly Dictionary<string, string> SwitchMappings = new(StringComparer.OrdinalIgnoreCase)
    {
        ["--urls"] = "Freight:Urls",
        ["--data-dir"] = "Freight:DataDirectory",
        ["--max-body-bytes"] = "Freight:MaxRequestBodyBytes",
        ["--fsync"] = "Freight:FlushToDisk",
        ["--store"] = "Freight:Files:Store",
        ["--s3-endpoint"] = "Freight:S3:Endpoint",
        ["--s3-bucket"] = "Freight:S3:Bucket",
    };

    public static void AddFreightSources(this IConfigurationBuilder configuration, string[] args)
    {
        // FREIGHT_X__Y=v becomes Freight:X:Y=v, so env vars and appsettings.json share one section.
        var fromEnvironment = new Dictionary<string, string?>(StringComparer.OrdinalIgnoreCase);
        foreach (DictionaryEntry variable in Environment.GetEnvironmentVariables())
        {
            var name = (string)variable.Key;
            if (name.StartsWith("FREIGHT_", StringComparison.OrdinalIgnoreCase) && name.Length > 8)
            {
                fromEnvironment[FreightServerOptions.SectionName + ":" + name[8..].Replace("__", ":", StringComparison.Ordinal)] = (string?)variable.Value;
            }
        }

        configuration.AddInMemoryCollection(fromEnvironment);
        configuration.AddCommandLine(args, SwitchMappings);
    }
}
