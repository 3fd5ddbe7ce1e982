using System.Collections;
using Freight.AspNetCore.Files;
using Freight.AspNetCore.Tus;
using Freight.Storage.S3;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Configuration.Json;
using Microsoft.Extensions.Options;

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

    /// <summary>The configuration sections serve reads from the command line: its own, Kestrel's limits, logging.</summary>
    private static readonly string[] s_sections = [FreightServerOptions.SectionName, "Kestrel", "Logging"];

    /// <summary>
    /// What on the command line is no setting serve reads, one failure each: an option that is neither a switch of the
    /// help nor a <c>--Section:Key</c> of a section it reads (<c>--datadir</c>, <c>--Freigth:Lab</c>), and a stray
    /// value. The host's command-line source takes anything and drops what no one binds, so a typo started the
    /// server on its defaults, its data somewhere else. Read as that source reads: <c>--key value</c>,
    /// <c>--key=value</c>, <c>/key value</c>, <c>key=value</c>.
    /// </summary>
    public static List<string> NotSettings(string[] args)
    {
        ArgumentNullException.ThrowIfNull(args);
        var failures = new List<string>();
        for (var i = 0; i < args.Length; i++)
        {
            var token = args[i];
            if (token == "--")
            {
                continue; // the end of options (System.CommandLine's convention): what follows is read alike
            }

            var prefixed = token.StartsWith("--", StringComparison.Ordinal) ? 2 : token.StartsWith('/') ? 1 : token.StartsWith('-') ? 1 : 0;
            var equals = token.IndexOf('=', StringComparison.Ordinal);
            if (prefixed == 0 && equals < 0)
            {
                failures.Add($"'{token}' is not an option of serve: options are --name value (freight serve --help).");
                continue;
            }

            var key = equals < 0 ? token[prefixed..] : token[prefixed..equals];
            if (prefixed > 0 && equals < 0)
            {
                i++; // its value
            }

            if (SwitchMappings.ContainsKey("--" + key) && token.StartsWith("--", StringComparison.Ordinal))
            {
                continue;
            }

            var section = key.Split(':')[0];
            if (!key.Contains(':'))
            {
                failures.Add($"{token} is not an option of serve: its options are the switches of freight serve --help and configuration keys --{FreightServerOptions.SectionName}:KEY (docs/server.md).");
            }
            else if (!s_sections.Contains(section, StringComparer.OrdinalIgnoreCase))
            {
                failures.Add($"{token} is not an option of serve: it reads the sections {string.Join(", ", s_sections)}, and '{section}' is none of them.");
            }
        }

        return failures;
    }

    /// <summary>
    /// Adds a failure for each setting of the <c>Freight</c> section that would not bind as given. The section is bound
    /// twice: into <see cref="FreightServerOptions"/>, and its <c>Files</c>, <c>Tus</c> and <c>S3</c> sections into the
    /// library's options by <c>AddFreightFiles</c>, <c>AddFreightTus</c> and <c>AddFreightS3Store</c>; its keys are
    /// those of all four types.
    /// </summary>
    public static void CheckFreightSection(IConfiguration configuration, List<string> failures)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        var shape = SettingShape.Of(typeof(FreightServerOptions))
            .Add(Below(FilesOptions.SectionName), SettingShape.Of(typeof(FilesOptions)))
            .Add(Below(TusOptions.SectionName), SettingShape.Of(typeof(TusOptions)))
            .Add(Below(S3StoreOptions.SectionName), SettingShape.Of(typeof(S3StoreOptions)));
        shape.Check(configuration.GetSection(FreightServerOptions.SectionName), failures, UnknownFreightKey);
        CheckS3Unused(configuration, failures);
    }

    private static string UnknownFreightKey(string key, string? closest) =>
        closest is null ? $"{key} is not an option of serve: docs/server.md lists them." : $"{key} is not an option of serve (did you mean {closest}?)";

    /// <summary>
    /// Refuses <c>Freight:S3</c> settings when the store is not S3: <c>AddFreightS3Store</c> never reads them then, and
    /// <c>--s3-bucket files</c> without <c>--store s3</c> ran on the file system without a word. A key set to "" counts as
    /// not given, so a configuration file's bucket can be blanked for a run on another store; a key below S3 that binds
    /// nothing is left to its own line (<see cref="UnknownFreightKey"/>).
    /// </summary>
    private static void CheckS3Unused(IConfiguration configuration, List<string> failures)
    {
        var files = new ServeFilesOptions();
        var storeKey = $"{FreightServerOptions.SectionName}:Files:{nameof(ServeFilesOptions.Store)}";
        files.Store = configuration[storeKey] ?? files.Store;
        var s3 = configuration.GetSection(S3StoreOptions.SectionName);
        var keys = s3.AsEnumerable().Where(setting => !string.IsNullOrEmpty(setting.Value)).Select(setting => setting.Key).Order(StringComparer.OrdinalIgnoreCase).ToList();
        var unknown = new List<string>();
        SettingShape.Of(typeof(S3StoreOptions)).Check(s3, unknown, UnknownFreightKey);
        if (files.IsS3Store || keys.Count == 0 || unknown.Count > 0)
        {
            return;
        }

        var named = keys.Count == 1 ? $"{keys[0]} is set" : $"{string.Join(", ", keys)} are set";
        failures.Add($"{named}, but the store is {files.Store}: {S3StoreOptions.SectionName} settings count only with {storeKey} S3 (--store s3).");
    }

    /// <summary>A library section's path below <c>Freight</c>, e.g. <c>Files</c> for <c>Freight:Files</c>.</summary>
    private static string Below(string sectionName) =>
        sectionName.StartsWith(FreightServerOptions.SectionName + ":", StringComparison.Ordinal)
            ? sectionName[(FreightServerOptions.SectionName.Length + 1)..]
            : throw new InvalidOperationException($"{sectionName} is not below {FreightServerOptions.SectionName}: serve binds the library's options from its own section.");

    /// <summary>
    /// Adds <c>appsettings.json</c> and <c>appsettings.{Environment}.json</c> of the working directory, where an operator
    /// runs serve, above the host's own from <paramref name="contentRoot"/> (the binary's folder: build output, holding
    /// serve's logging defaults) and below environment variables and the command line, as .NET orders its sources.
    /// Read once at start. A file that is not valid JSON is refused naming it (the loader's own exception has a stack).
    /// </summary>
    public static void AddWorkingDirectoryFiles(this IConfigurationBuilder configuration, string contentRoot, string environmentName)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        var directory = Path.TrimEndingDirectorySeparator(Path.GetFullPath(Directory.GetCurrentDirectory()));
        if (directory == Path.TrimEndingDirectorySeparator(Path.GetFullPath(contentRoot)))
        {
            return; // the host reads these already
        }

        var sources = configuration.Sources;
        var at = sources.Count;
        while (at > 0 && sources[at - 1] is not JsonConfigurationSource)
        {
            at--;
        }

        foreach (var name in new[] { "appsettings.json", $"appsettings.{environmentName}.json" })
        {
            var file = Path.Combine(directory, name);
            var source = new JsonConfigurationSource { Path = file, Optional = true, ReloadOnChange = false };
            source.ResolveFileProvider();
            try
            {
                sources.Insert(at++, source);
            }
            catch (InvalidDataException unreadable)
            {
                throw NotJson(file, unreadable);
            }
        }
    }

    /// <summary>
    /// The refusal of a JSON file the host reads as it is built (<c>appsettings.json</c> and <c>appsettings.{Environment}.json</c>
    /// of the binary's folder, the content root), in the words of the working directory's: the host takes no handler
    /// before it reads them, so the file is the one its loader's message quotes ("Failed to load configuration from file '…'.").
    /// </summary>
    public static OptionsValidationException NotJson(InvalidDataException unreadable)
    {
        ArgumentNullException.ThrowIfNull(unreadable);
        var message = unreadable.Message;
        var (first, last) = (message.IndexOf('\'', StringComparison.Ordinal), message.LastIndexOf('\''));
        var file = last > first + 1 ? message[(first + 1)..last] : "";
        return Path.IsPathFullyQualified(file)
            ? NotJson(file, unreadable)
            : new OptionsValidationException(FreightServerOptions.SectionName, typeof(FreightServerOptions), [$"{message.TrimEnd('.')}{Where(unreadable)}"]);
    }

    private static OptionsValidationException NotJson(string file, InvalidDataException unreadable) =>
        new(FreightServerOptions.SectionName, typeof(FreightServerOptions), [$"{file} is not valid JSON{Where(unreadable)}"]);

    /// <summary>Where the parser stopped, counted from 1 as editors count (System.Text.Json counts from 0), and why.</summary>
    private static string Where(Exception unreadable)
    {
        for (Exception? inner = unreadable; inner is not null; inner = inner.InnerException)
        {
            if (inner is System.Text.Json.JsonException { LineNumber: { } line, BytePositionInLine: { } position } json)
            {
                var reason = json.Message.IndexOf(" LineNumber:", StringComparison.Ordinal) is var end and > 0 ? json.Message[..end] : json.Message;
                return string.Create(System.Globalization.CultureInfo.InvariantCulture, $" at line {line + 1}, byte {position + 1}: {reason}");
            }
        }

        return $": {unreadable.InnerException?.Message ?? unreadable.Message}";
    }

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
        // "--", the end of options (System.CommandLine's convention), is no key: the source would take the next option as its value.
        configuration.AddCommandLine([.. args.Where(arg => arg != "--")], SwitchMappings);
    }
}
