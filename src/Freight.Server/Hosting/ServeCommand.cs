using System.CommandLine;

namespace Freight.Server.Hosting;

/// <summary>
/// <c>freight serve</c> on the command line. Its settings are .NET configuration keys that the host binds
/// (appsettings.json, FREIGHT_ variables, the command line): the options here are the short switches, defined for
/// the generated help only, and the action hands the arguments to <see cref="FreightServer.RunAsync"/> unchanged, so
/// <c>--Freight:KEY VALUE</c> for any key of docs/server.md keeps working. Invalid values exit 2 there.
/// </summary>
public static class ServeCommand
{
    private static readonly (string Name, string HelpName, string Description)[] Switches =
    [
        ("--urls", "URL[;URL…]", "Where to listen (default http://127.0.0.1:5080; https:// with a self-signed certificate; h2c:// for cleartext HTTP/2 with prior knowledge). Freight:Urls."),
        ("--data-dir", "DIR", "The file system store's root and tus uploads (default ./freight-data). Freight:DataDirectory."),
        ("--max-body-bytes", "N", "The largest request body (default 4 GiB). Freight:MaxRequestBodyBytes."),
        ("--fsync", "true|false", "Flush each upload to disk before it is renamed into place. Freight:FlushToDisk."),
        ("--store", "FileSystem|Memory|S3", "Where the files API and tus keep bytes: FileSystem (default), Memory, S3 (any case). Freight:Files:Store."),
        ("--s3-endpoint", "URL", "The S3 store's server (keys: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY). Freight:S3:Endpoint."),
        ("--s3-bucket", "NAME", "The S3 store's bucket. Freight:S3:Bucket."),
    ];

    /// <summary>The short switches the help lists (each one a key of <c>FreightConfiguration.SwitchMappings</c>).</summary>
    public static IEnumerable<string> SwitchNames => Switches.Select(s => s.Name);

    /// <summary>
    /// The definition; <paramref name="serveArguments"/> gives the arguments after <c>serve</c> as typed, which the
    /// action passes to the host's configuration untouched (the parse only serves the help and finds the command).
    /// </summary>
    public static Command Create(Func<string[]> serveArguments, TextWriter output, TextWriter error)
    {
        ArgumentNullException.ThrowIfNull(serveArguments);
        var command = new Command(
            "serve",
            "Run the file transfer service (files API, tus) and the lab. Prints \"listening: URL\" per address once it serves; Ctrl+C stops it. " +
            "Every option of docs/server.md's tables is a configuration key: --Freight:KEY VALUE on the command line, FREIGHT_KEY__SUB=VALUE in the environment, or appsettings.json. " +
            "Exit code 2 on invalid options, a data, files or tus directory it cannot write (full, read-only, a file), or an address it cannot listen on (in use, privileged, not the machine's).")
        {
            // Configuration keys are open-ended: what no switch names is one of these settings, which the host
            // validates. An argument, not TreatUnmatchedTokensAsErrors = false, so the help says what they are
            // (that flag's help is System.CommandLine's "[[--] <additional arguments>...]]", "passed to the application").
            new Argument<string[]>("settings")
            {
                Description = "Configuration settings, each --Section:Key value, of the sections Freight, Kestrel and Logging: " +
                    "--Freight:DataDirectory DIR, --Freight:Lab false, --Kestrel:Limits:RequestHeadersTimeout 00:00:10, --Logging:LogLevel:Default Warning, … " +
                    "docs/server.md lists the keys; anything else is refused (exit 2).",
                Arity = ArgumentArity.ZeroOrMore,
            },
        };
        foreach (var (name, helpName, description) in Switches)
        {
            // Repeatable, as the host's command line is (the last value wins there): the parse must refuse nothing the host takes.
            command.Options.Add(new Option<string[]>(name) { Description = description, HelpName = helpName, AllowMultipleArgumentsPerToken = false });
        }

        command.SetAction((_, _) => FreightServer.RunAsync(serveArguments(), output, error));
        return command;
    }
}
