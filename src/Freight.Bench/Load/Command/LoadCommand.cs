using System.CommandLine;
using CliCommand = System.CommandLine.Command;
using System.CommandLine.Parsing;
using System.Globalization;
using System.Net;
using System.Net.Security;
using System.Security.Cryptography;
using Freight.Bench.Cli;
using Freight.Bench.Load.Blame;
using Freight.Bench.Load.Bodies;
using Freight.Bench.Load.Engine;

namespace Freight.Bench.Load.Command;

/// <summary>
/// <c>freight load URL</c>: load any HTTP endpoint, verify what comes back, and say which side saturated
/// (docs/load.md). Defined with System.CommandLine: one definition per option gives the help, the
/// validation and its messages; usage errors exit 2, a run with failures 1.
/// </summary>
public static class LoadCommand
{
    public const int UsageError = Cli.CliRun.UsageError;

    /// <summary>The most <c>--runs</c>: 30 runs put an interval within a few percent; more only lengthen the wait.</summary>
    public const int MaxRuns = 30;

    private static readonly string[] Methods = ["GET", "HEAD", "PUT", "POST", "PATCH"];

    private static readonly Argument<Uri> Url = new("URL")
    {
        Description = "The http:// or https:// URL every request goes to.",
        // An unknown option given before the URL is taken as the URL: it is named as unknown, not as a bad URL.
        CustomParser = result => CliValues.IsOptionLike(result.Tokens[0].Value)
            ? Fail<Uri>(result, CliValues.Unrecognized(result.Tokens[0].Value))
            : Uri.TryCreate(result.Tokens[0].Value, UriKind.Absolute, out var uri) && (uri.Scheme == Uri.UriSchemeHttp || uri.Scheme == Uri.UriSchemeHttps)
                ? uri
                : Fail<Uri>(result, $"'{result.Tokens[0].Value}' is not an absolute http:// or https:// URL."),
    };

    private static readonly Option<string> Method = new("--method", "-X")
    {
        Description = "GET, HEAD, PUT, POST or PATCH.",
        DefaultValueFactory = _ => "GET",
        CustomParser = result => Methods.Contains(result.Tokens[0].Value.ToUpperInvariant())
            ? result.Tokens[0].Value.ToUpperInvariant()
            : Fail<string>(result, $"-X {result.Tokens[0].Value}: the method is one of {string.Join(", ", Methods)}."),
    };

    private static readonly Option<long?> Size = new("--size")
    {
        Description = "Request body: the first N bytes of the deterministic payload (N may end in KiB, MiB or GiB; 0 for an empty body).",
        HelpName = "N",
        CustomParser = result => ParseSize(result),
    };

    private static readonly Option<FileInfo?> BodyFile = new("--file")
    {
        Description = "Request body: this file's bytes, read anew for every request.",
        HelpName = "PATH",
    };

    private static readonly Option<bool> Multipart = new("--multipart")
    {
        Description = "Send the body as the one file part of a multipart/form-data form.",
    };

    private static readonly Option<string> Field = new("--field")
    {
        Description = "--multipart: the form field's name.",
        DefaultValueFactory = _ => "file",
    };

    private static readonly Option<string?> FileName = new("--filename")
    {
        Description = "--multipart: the part's file name (default: the --file's name, or payload.bin).",
    };

    private static readonly Option<string[]> Headers = new("--header", "-H")
    {
        Description = "A header field \"Name: value\" on every request; repeatable.",
        HelpName = "\"Name: value\"",
        AllowMultipleArgumentsPerToken = false,
    };

    // Numbers parse through CliValues: an error names the option and what it needs ("3s" is not a number of seconds).
    private static readonly Option<int?> Connections = CliValues.PositiveInt(
        "--connections", "Connections, 8 by default (closed loop: each sends its next request when the last ends; open loop: the most opened).", aliases: "-c");

    private static readonly Option<double?> Duration = CliValues.Number(
        "--duration", "Seconds to run (default 10 unless --requests is given).", helpName: "SECONDS", unit: CliValues.Seconds, aliases: "-d");

    private static readonly Option<int?> Requests = CliValues.PositiveInt(
        "--requests", "Send exactly this many requests, then stop (with --duration, the first reached).", aliases: "-n");

    private static readonly Option<int?> Runs = CliValues.WholeNumber(
        "--runs", $"Measured runs of --duration each, one after another on fresh connections (default 1, at most {MaxRuns}); compare draws a 95% interval from 3 or more a side.",
        1, MaxRuns, $"a number of runs from 1 to {MaxRuns}");

    private static readonly Option<double?> Rate = CliValues.Number(
        "--rate", "Open loop: R requests a second on schedule, latency counted from each one's due time (as wrk2: no coordinated omission).",
        helpName: "R", unit: "requests a second", aliases: "-R");

    private static readonly Option<string> Http = new("--http")
    {
        Description = "Protocol: 1.1 or 2 (over http://, HTTP/2 with prior knowledge).",
        DefaultValueFactory = _ => "1.1",
    };

    private static readonly Option<string?> Pin = CliValues.Sha256Hex(
        "--pin-sha256", "https://: trust exactly the server certificate with this SHA-256 (64 hex digits; freight serve prints it).", "--certificate-sha256");

    private static readonly Option<bool> Insecure = new("--insecure", "-k")
    {
        Description = "https://: accept any server certificate.",
    };

    private static readonly Option<int?> ExpectStatus = CliValues.WholeNumber(
        "--expect-status", "The status every response must have (default: any; bodies are then checked on 2xx).", 200, 999, "a final status code (200–999)", "CODE");

    private static readonly Option<string?> ExpectSha256 = CliValues.Sha256Hex(
        "--expect-sha256", "The SHA-256 (hex) every checked response body must have, hashed as it streams in.");

    private static readonly Option<FileInfo?> ExpectBody = new("--expect-body")
    {
        Description = "Every checked response body must be this file's bytes (compared by SHA-256, hashed as they stream).",
        HelpName = "FILE",
    };

    private static readonly Option<double?> Timeout = CliValues.Number(
        "--timeout", "Seconds a request may take, body included, before it counts as a timeout (default 30).", helpName: "SECONDS", unit: CliValues.Seconds);

    private static readonly Option<int?> ServerPid = CliValues.WholeNumber(
        "--server-pid", "Sample this server process (CPU, RSS, threads; runtime counters when it is .NET) to say which side saturated.", 1, int.MaxValue, "a process id", "PID");

    private static readonly Option<string?> ServerProcess = new("--server-process")
    {
        Description = "As --server-pid, for the one process of this name (e.g. nginx, or App for dotnet App.dll).",
        HelpName = "NAME",
    };

    private static readonly Option<bool> ThroughProxy = new("--through-proxy")
    {
        Description = "The server named by --server-pid or --server-process sits behind a proxy on this machine listening on the URL's port (nginx in front of an app): "
            + "measure both, the proxy as the proxy (its CPU not counted among other processes; the verdict may be proxy-bound).",
    };

    private static readonly Option<FileInfo?> Json = new("--json") { Description = "Write the result JSON (scenario load/<method>) here.", HelpName = "FILE" };

    private static readonly Option<FileInfo?> Markdown = new("--markdown") { Description = "Write the result as Markdown tables here.", HelpName = "FILE" };

    private static readonly Option<DirectoryInfo?> Csv = new("--csv") { Description = "Write the result's CSV tables (per-second series included) into this directory.", HelpName = "DIR" };

    private static readonly Option<FileInfo?> Html = new("--html") { Description = "Write the HTML report here.", HelpName = "FILE" };

    private static readonly Option<bool> NoProgress = new("--no-progress") { Description = "No live progress line." };

    /// <summary>The command's definition; <see cref="RunAsync"/> parses and runs it.</summary>
    public static CliCommand Create(TextWriter output, TextWriter error)
    {
        var command = new CliCommand("load", "Load any HTTP endpoint with large or small payloads, verify every response, and say which side saturated.")
        {
            Url, Method, Size, BodyFile, Multipart, Field, FileName, Headers, Connections, Duration, Requests, Runs, Rate, Http,
            Pin, Insecure, ExpectStatus, ExpectSha256, ExpectBody, Timeout, ServerPid, ServerProcess, ThroughProxy, Json, Markdown, Csv, Html, NoProgress,
        };
        command.Validators.Add(Validate);
        command.SetAction(async (parse, cancellationToken) =>
        {
            var settings = Bind(parse, out var problem);
            if (settings is null)
            {
                await error.WriteLineAsync($"error: {problem}");
                return UsageError;
            }

            InlineSocketCompletions(settings.Engine);
            return await LoadSession.RunAsync(settings, output, error, cancellationToken);
        });
        return command;
    }

    /// <summary>
    /// The raw HTTP/1.1 client's continuations never block, so they may run on the runtime's socket event thread
    /// instead of being queued to the thread pool at every receive: one thread then drives every connection, as
    /// wrk's one epoll thread does (measured: the 4 KiB rows of docs/results/2026-11-25-load-idle.md). The runtime
    /// reads this variable once, when the process's first socket registers, hence here, before any; a value the
    /// user set is kept. HttpClient runs keep the thread pool: TLS, HTTP/2 and request bodies work on those threads.
    /// </summary>
    private static void InlineSocketCompletions(LoadOptions engine)
    {
        const string Variable = "DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS";
        if (engine.UsesRawHttp11 && Environment.GetEnvironmentVariable(Variable) is null)
        {
            Environment.SetEnvironmentVariable(Variable, "1");
        }
    }

    /// <summary>Parses <paramref name="args"/> (what follows <c>freight load</c>) and runs; 0 all verified, 1 failures, 2 usage error.</summary>
    public static async Task<int> RunAsync(IReadOnlyList<string> args, TextWriter output, TextWriter error, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(args);
        return await Cli.CliRun.RunAsync(Cli.CliRun.Root("", Create(output, error)), ["load", .. args], output, error, cancellationToken);
    }

    private static void Validate(CommandResult result)
    {
        string? Problem()
        {
            // Options left out are not in the result yet (their defaults apply later): only given values are checked.
            var method = result.GetResult(Method) is null ? "GET" : result.GetValue(Method) ?? "GET";
            var hasBody = result.GetValue(Size) is not null || result.GetValue(BodyFile) is not null;
            var https = result.GetValue(Url)?.Scheme == Uri.UriSchemeHttps;
            if (result.GetValue(Size) is not null && result.GetValue(BodyFile) is not null)
            {
                return "--size and --file both give the body: choose one.";
            }

            if (hasBody && method is "GET" or "HEAD")
            {
                return $"{method} requests carry no body: use -X PUT, POST or PATCH with --size or --file.";
            }

            // A run of empty uploads said 0.0 MiB/s and exit 0: an empty body is asked for, never a default.
            if (!hasBody && method is "PUT" or "POST" or "PATCH")
            {
                return $"-X {method} needs a body: --size N (the payload; --size 0 for an empty body) or --file PATH.";
            }

            if (result.GetValue(Multipart) && !hasBody)
            {
                return "--multipart wraps a body: give --size or --file.";
            }

            if (result.GetValue(BodyFile) is { Exists: false } missing)
            {
                return $"--file {missing.FullName}: no such file.";
            }

            if (result.GetValue(ExpectBody) is { Exists: false } absent)
            {
                return $"--expect-body {absent.FullName}: no such file.";
            }

            if (result.GetValue(ExpectBody) is not null && result.GetValue(ExpectSha256) is not null)
            {
                return "--expect-body and --expect-sha256 both give the expected body: choose one.";
            }

            if ((result.GetValue(Pin) is not null || result.GetValue(Insecure)) && !https)
            {
                return "--pin-sha256 and --insecure are for https:// URLs.";
            }

            if (result.GetValue(Pin) is not null && result.GetValue(Insecure))
            {
                return "--pin-sha256 and --insecure contradict each other: choose one.";
            }

            if (result.GetResult(Http) is not null && result.GetValue(Http) is not ("1.1" or "2"))
            {
                return "--http is 1.1 or 2.";
            }

            if (result.GetValue(ServerPid) is not null && result.GetValue(ServerProcess) is not null)
            {
                return "--server-pid and --server-process both name the server: choose one.";
            }

            if (result.GetValue(ThroughProxy) && result.GetValue(ServerPid) is null && result.GetValue(ServerProcess) is null)
            {
                return "--through-proxy measures the server behind the proxy: name it with --server-pid or --server-process.";
            }

            foreach (var header in result.GetValue(Headers) ?? [])
            {
                if (ParseHeader(header) is null)
                {
                    return $"-H \"{header}\": a header is \"Name: value\" with a token for a name.";
                }
            }

            return null;
        }

        try
        {
            if (Problem() is { } problem)
            {
                result.AddError(problem);
            }
        }
        catch (InvalidOperationException)
        {
            // A value that failed its own parse (its error is already reported) cannot be read: nothing more to say.
        }
    }

    /// <summary>Builds the settings from a parse that passed validation; null and the problem for what only running can find (a server name, a file).</summary>
    private static LoadSettings? Bind(ParseResult parse, out string? problem)
    {
        problem = UnwritableOutput(parse);
        if (problem is not null)
        {
            return null;
        }

        var url = parse.GetValue(Url)!;
        var method = new HttpMethod(parse.GetValue(Method) ?? "GET");

        RequestBody? body = null;
        var source = "none";
        if (parse.GetValue(Size) is { } size)
        {
            body = new PayloadBody(size);
            source = "payload";
        }
        else if (parse.GetValue(BodyFile) is { } file)
        {
            body = new FileBody(file.FullName);
            source = "file";
        }

        if (body is not null && parse.GetValue(Multipart))
        {
            body = new MultipartBody(body, parse.GetValue(Field) ?? "file", parse.GetValue(FileName) ?? parse.GetValue(BodyFile)?.Name ?? "payload.bin");
        }

        byte[]? sha256 = parse.GetValue(ExpectSha256) is { } hex ? Convert.FromHexString(hex) : null;
        if (parse.GetValue(ExpectBody) is { } expected)
        {
            // Hashed once, streaming: the expected body is never held whole in memory either.
            using var stream = Client.FileHasher.OpenSequential(expected.FullName);
            sha256 = SHA256.HashData(stream);
        }

        var serverPid = parse.GetValue(ServerPid);
        var serverOption = $"--server-pid {serverPid}";
        if (parse.GetValue(ServerProcess) is { } name)
        {
            var found = ServerProcessFinder.Find(name);

            // Several of one name (two apps, a build's and a run's dotnet, nginx's master and workers): the one listening on the
            // URL's port is the server, a pre-fork server's master standing for its workers.
            if (found.Count > 1 && ServerListener.Listening(url, found) is [var listening])
            {
                found = [listening];
            }

            if (found.Count != 1)
            {
                problem = found.Count == 0
                    ? $"--server-process {name}: no such process."
                    : $"--server-process {name}: {found.Count} processes ({string.Join(", ", found)}); name one with --server-pid.";
                return null;
            }

            serverPid = found[0];
            serverOption = $"--server-process {name}: PID {serverPid}";
        }

        if (serverPid is { } pid && !ProcessWatch.CanRead(pid))
        {
            problem = $"--server-pid {pid}: no such process, or its /proc entry cannot be read.";
            return null;
        }

        string? serverNote = null;
        IReadOnlyList<int> serverWorkers = [];
        WorkerSearch? serverSearch = null;
        ServerListener.Choice? proxy = null;
        if (serverPid is { } given)
        {
            ServerListener.Choice choice;
            if (parse.GetValue(ThroughProxy))
            {
                (choice, proxy) = ServerListener.CheckBehindProxy(url, given, serverOption);
            }
            else
            {
                choice = ServerListener.Check(url, given, serverOption);
            }

            (serverPid, serverNote, problem, serverWorkers, serverSearch) = (choice.ProcessId, choice.Note, choice.Problem, choice.Workers, choice.Search);
            if (problem is not null)
            {
                return null;
            }
        }

        var headers = new List<KeyValuePair<string, string>>();
        foreach (var header in parse.GetValue(Headers) ?? [])
        {
            headers.Add(ParseHeader(header)!.Value);
        }

        var duration = parse.GetValue(Duration);
        var requests = parse.GetValue(Requests);
        var pin = parse.GetValue(Pin); // plain upper-case hex: CliValues.Sha256Hex normalized it
        var insecure = parse.GetValue(Insecure);
        var engine = new LoadOptions
        {
            Target = url,
            Method = method,
            Headers = headers,
            Body = body,
            HttpVersion = parse.GetValue(Http) == "2" ? HttpVersion.Version20 : HttpVersion.Version11,
            Connections = parse.GetValue(Connections) ?? 8,
            RatePerSecond = parse.GetValue(Rate),
            Duration = duration is { } d ? TimeSpan.FromSeconds(d) : requests is null ? TimeSpan.FromSeconds(10) : null,
            MaxRequests = requests,
            RequestTimeout = TimeSpan.FromSeconds(parse.GetValue(Timeout) ?? 30),
            ExpectedStatusCode = parse.GetValue(ExpectStatus),
            ExpectedSha256 = sha256,
            CheckDigestFields = true,
            ConfigureHandler = pin is null && !insecure ? null : handler => handler.SslOptions = new SslClientAuthenticationOptions
            {
                RemoteCertificateValidationCallback = (_, certificate, _, _) =>
                    insecure || (certificate is not null && Convert.ToHexString(certificate.GetCertHash(HashAlgorithmName.SHA256)) == pin),
            },
        };

        return new LoadSettings
        {
            Engine = engine,
            BodySource = source,
            Multipart = parse.GetValue(Multipart),
            Runs = parse.GetValue(Runs) ?? 1,
            ServerProcessId = serverPid,
            ServerWorkers = serverWorkers,
            ServerWorkerSearch = serverSearch,
            ServerNote = serverNote,
            ProxyProcessId = proxy?.ProcessId,
            ProxyWorkers = proxy?.Workers ?? [],
            ProxyWorkerSearch = proxy?.Search,
            ProxyNote = proxy?.Note,
            JsonPath = parse.GetValue(Json)?.FullName,
            MarkdownPath = parse.GetValue(Markdown)?.FullName,
            CsvDirectory = parse.GetValue(Csv)?.FullName,
            HtmlPath = parse.GetValue(Html)?.FullName,
            Progress = !parse.GetValue(NoProgress),
        };
    }

    /// <summary>The first output the run could not write, checked before it starts as bench does: found at the end, it lost the measurement.</summary>
    private static string? UnwritableOutput(ParseResult parse)
    {
        foreach (var file in new[] { Json, Markdown, Html })
        {
            if (parse.GetValue(file) is { } path && OutputPath.WhyNotWritable(path.FullName) is { } why)
            {
                return $"{file.Name} {path.FullName} cannot be written: {why}";
            }
        }

        return parse.GetValue(Csv) is { } directory && OutputPath.WhyNotWritableDirectory(directory.FullName) is { } notWritable
            ? $"{Csv.Name} {directory.FullName} cannot be written into: {notWritable}"
            : null;
    }

    /// <summary>"Name: value" with an RFC 9110 §5.6.2 token for a name; null when it is not one.</summary>
    internal static KeyValuePair<string, string>? ParseHeader(string text)
    {
        var colon = text.IndexOf(':', StringComparison.Ordinal);
        if (colon <= 0)
        {
            return null;
        }

        var name = text[..colon];
        foreach (var c in name)
        {
            if (!(char.IsAsciiLetterOrDigit(c) || "!#$%&'*+-.^_`|~".Contains(c, StringComparison.Ordinal)))
            {
                return null;
            }
        }

        var value = text[(colon + 1)..].Trim(' ', '\t');
        return value.Contains('\r', StringComparison.Ordinal) || value.Contains('\n', StringComparison.Ordinal) ? null : new(name, value);
    }


    /// <summary>Bytes, or a number ending in KiB, MiB or GiB (binary units, as the rest of the bench prints them).</summary>
    private static long? ParseSize(ArgumentResult result)
    {
        var text = result.Tokens[0].Value.Trim();
        long unit = 1;
        foreach (var (suffix, bytes) in new[] { ("GiB", 1L << 30), ("MiB", 1L << 20), ("KiB", 1L << 10) })
        {
            if (text.EndsWith(suffix, StringComparison.OrdinalIgnoreCase))
            {
                unit = bytes;
                text = text[..^suffix.Length].TrimEnd();
                break;
            }
        }

        return long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var count) && count <= long.MaxValue / unit
            ? count * unit
            : Fail<long?>(result, $"--size {result.Tokens[0].Value}: a size is bytes, or a whole number of KiB, MiB or GiB.");
    }

    private static T Fail<T>(ArgumentResult result, string message)
    {
        result.AddError(message);
        return default!;
    }
}
