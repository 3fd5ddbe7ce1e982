using System.CommandLine;
using System.CommandLine.Parsing;
using Freight.Bench.Cli;
using CliCommand = System.CommandLine.Command;

namespace Freight.Bench.Client;

/// <summary>
/// The command lines of <c>freight put FILE URL</c> and <c>freight get URL FILE</c>, defined once with
/// System.CommandLine (help, validation, exit code 2 on usage errors); a valid parse binds to <see cref="ClientOptions"/>.
/// </summary>
public static class ClientCommand
{
    private const string ExitCodes = "Exit codes: 0 done and verified, 1 transfer, HTTP or digest failure (or Ctrl+C), 2 usage.";

    private static readonly Option<string?> Token = new("--token")
    {
        Description = "Send Authorization: Bearer T.",
        HelpName = "T",
        CustomParser = result =>
        {
            var token = CliValues.Token(result);
            return token.Length > 0 && !token.Any(c => char.IsWhiteSpace(c) || char.IsControl(c))
                ? token
                : CliValues.Fail<string?>(result, "--token must be one word: no spaces or control characters.");
        },
    };

    private static readonly Option<bool> NoProgress = new("--no-progress") { Description = "No progress line on stderr (there is none when stderr is not a terminal)." };

    private static readonly Option<string?> CertificateSha256 = CliValues.Sha256Hex(
        "--certificate-sha256",
        "https:// only: trust exactly the certificate with this SHA-256 (the hex that freight serve prints), instead of the system's trust.");

    private static readonly Option<bool> IfNoneMatch = new("--if-none-match") { Description = "Create only: fail (412) when URL already exists (If-None-Match: *)." };

    /// <summary>The definition of put or get; its action transfers, with a progress line when <paramref name="errorIsTerminal"/>.</summary>
    public static CliCommand Create(TransferVerb verb, TextWriter output, TextWriter error, bool errorIsTerminal)
    {
        var url = new Argument<Uri>("URL")
        {
            Description = verb == TransferVerb.Put ? "Where to upload, e.g. http://127.0.0.1:5080/files/NAME." : "What to download.",
            CustomParser = result => CliValues.HttpUrl(result, "URL")!,
        };
        var file = new Argument<string>("FILE")
        {
            Description = verb == TransferVerb.Put ? "The local file to send." : "Where to save (FILE.partial until verified).",
            Validators = { result => { if (string.IsNullOrWhiteSpace(CliValues.Token(result))) { result.AddError("FILE: the file name is empty."); } } },
        };
        var command = verb == TransferVerb.Put
            ? new CliCommand("put", "Upload FILE to URL with one PUT: hashes FILE first, then streams it with Content-Length, Content-Digest: sha-256=:…: and a Content-Type from its extension, and checks that the Repr-Digest the server answers is FILE's SHA-256. " + ExitCodes)
            {
                file, url, IfNoneMatch,
            }
            : new CliCommand("get", "Download URL into FILE.partial (its ETag in FILE.partial.etag), check the whole file's SHA-256 against the server's Repr-Digest, then rename it to FILE. An interrupted get (Ctrl+C, a lost connection) keeps FILE.partial: the same command resumes it with Range and If-Range, and starts over when the file changed on the server. A digest mismatch deletes FILE.partial. " + ExitCodes)
            {
                url, file,
            };
        command.Options.Add(Token);
        command.Options.Add(NoProgress);
        command.Options.Add(CertificateSha256);
        command.Validators.Add(result => Validate(result, url));
        command.SetAction(async (parse, cancellationToken) =>
        {
            var options = Bind(parse, url, file);
            // Checked when the command runs, not as it parses: the files may come and go, and Parse stays a pure reading.
            if (LocalFileProblem(verb, options.File) is { } problem)
            {
                await error.WriteLineAsync($"error: {problem}");
                return CliRun.UsageError;
            }

            var interactive = errorIsTerminal && !options.NoProgress;
            return verb == TransferVerb.Put
                ? await PutCommand.TransferAsync(options, output, error, interactive, cancellationToken)
                : await GetCommand.TransferAsync(options, output, error, interactive, cancellationToken);
        });
        return command;
    }

    /// <summary>Parses the arguments after the verb; null and an error message when they are not valid.</summary>
    public static ClientOptions? Parse(TransferVerb verb, IReadOnlyList<string> args, out string? error)
    {
        var command = Create(verb, TextWriter.Null, TextWriter.Null, errorIsTerminal: false);
        var parse = CliRun.Parse(command, args, out error);
        return parse is null ? null : Bind(parse, (Argument<Uri>)command.Arguments.Single(a => a.Name == "URL"), (Argument<string>)command.Arguments.Single(a => a.Name == "FILE"));
    }

    /// <summary>Parses and runs put or get (<paramref name="args"/>: what follows the verb).</summary>
    internal static Task<int> RunAsync(TransferVerb verb, IReadOnlyList<string> args, TextWriter output, TextWriter error, bool errorIsTerminal, CancellationToken cancellationToken)
    {
        var command = Create(verb, output, error, errorIsTerminal);
        return CliRun.RunAsync(CliRun.Root(command.Description ?? "", command), [command.Name, .. args], output, error, cancellationToken);
    }

    private static void Validate(CommandResult result, Argument<Uri> url)
    {
        try
        {
            var target = result.GetValue(url);
            if (result.GetValue(CertificateSha256) is not null && target is not null && target.Scheme != Uri.UriSchemeHttps)
            {
                result.AddError($"--certificate-sha256 is for https:// URLs; {target.Scheme}:// has no certificate.");
            }
        }
        catch (InvalidOperationException)
        {
            // A value that failed its own parse (its error is already reported) cannot be read: nothing more to say.
        }
    }

    /// <summary>put: FILE must exist; get: FILE must name a file in an existing directory.</summary>
    private static string? LocalFileProblem(TransferVerb verb, string path)
    {
        if (verb == TransferVerb.Put)
        {
            return File.Exists(path) ? null : $"{path}: no such file.";
        }

        var directory = Path.GetDirectoryName(Path.GetFullPath(path));
        return Directory.Exists(path) || directory is null || !Directory.Exists(directory) ? $"{path}: not a file in an existing directory." : null;
    }

    private static ClientOptions Bind(ParseResult parse, Argument<Uri> url, Argument<string> file) => new()
    {
        Url = parse.GetValue(url)!,
        File = parse.GetValue(file)!,
        Token = parse.GetValue(Token),
        IfNoneMatch = parse.GetValue(IfNoneMatch),
        NoProgress = parse.GetValue(NoProgress),
        CertificateSha256 = parse.GetValue(CertificateSha256),
    };
}
