using System.Globalization;

namespace Freight.Bench.Client;

/// <summary>Options of <c>freight put</c> and <c>freight get</c>.</summary>
public sealed record ClientOptions
{
    /// <summary>The remote file: a freight serve <c>/files/...</c> address or any HTTP(S) URL.</summary>
    public required Uri Url { get; init; }

    /// <summary>The local file: what put sends, or where get saves.</summary>
    public required string File { get; init; }

    /// <summary>Sent as <c>Authorization: Bearer TOKEN</c>.</summary>
    public string? Token { get; init; }

    /// <summary>put only: <c>If-None-Match: *</c>, so an existing file is never replaced.</summary>
    public bool IfNoneMatch { get; init; }

    public bool NoProgress { get; init; }

    /// <summary>Upper-case hex SHA-256 of the only certificate an https:// server may present.</summary>
    public string? CertificateSha256 { get; init; }

    private const string CommonOptions = """
          --token T                 send Authorization: Bearer T
          --no-progress             no progress line on stderr (there is none when stderr is not a terminal)
          --certificate-sha256 HEX  https:// only: trust exactly the certificate with this SHA-256
                                    (the hex that freight serve prints), instead of the system's trust
          exit codes: 0 done and verified, 1 transfer, HTTP or digest failure (or Ctrl+C), 2 usage
        """;

    public const string PutUsage = """
        usage: freight put FILE URL [--if-none-match] [--token T] [--no-progress] [--certificate-sha256 HEX]
          uploads FILE to URL (e.g. http://127.0.0.1:5080/files/NAME) with one PUT: hashes FILE first, then
          streams it with Content-Length, Content-Digest: sha-256=:…: and a Content-Type from its extension,
          and checks that the Repr-Digest the server answers is FILE's SHA-256
          --if-none-match           create only: fail (412) when URL already exists
        """ + "\n" + CommonOptions;

    public const string GetUsage = """
        usage: freight get URL FILE [--token T] [--no-progress] [--certificate-sha256 HEX]
          downloads URL into FILE.partial, keeping its ETag in FILE.partial.etag, checks the whole file's
          SHA-256 against the server's Repr-Digest, then renames FILE.partial to FILE. An interrupted get
          (Ctrl+C, a lost connection) keeps FILE.partial: the same command resumes it with Range and If-Range,
          and starts over when the file changed on the server. A digest mismatch deletes FILE.partial.
        """ + "\n" + CommonOptions;

    /// <summary>Parses the arguments after the verb; null and an error message when they are not valid.</summary>
    public static ClientOptions? Parse(TransferVerb verb, IReadOnlyList<string> args, out string? error)
    {
        ArgumentNullException.ThrowIfNull(args);
        error = null;
        var positional = new List<string>(2);
        string? token = null;
        string? pin = null;
        var ifNoneMatch = false;
        var noProgress = false;
        for (var i = 0; i < args.Count; i++)
        {
            var arg = args[i];
            switch (arg)
            {
                case "--no-progress":
                    noProgress = true;
                    continue;
                case "--if-none-match" when verb == TransferVerb.Put:
                    ifNoneMatch = true;
                    continue;
                case "--token" or "--certificate-sha256":
                    if (i + 1 >= args.Count)
                    {
                        error = $"{arg} needs a value.";
                        return null;
                    }

                    var value = args[++i];
                    if (arg == "--token")
                    {
                        token = value;
                    }
                    else
                    {
                        pin = value;
                    }

                    continue;
                case "--":
                    positional.AddRange(args.Skip(i + 1));
                    i = args.Count;
                    continue;
            }

            if (arg.StartsWith("--", StringComparison.Ordinal))
            {
                error = $"unknown option '{arg}'.";
                return null;
            }

            positional.Add(arg);
        }

        var shape = verb == TransferVerb.Put ? "put needs FILE and URL" : "get needs URL and FILE";
        if (positional.Count != 2)
        {
            error = $"{shape} ({positional.Count} argument{(positional.Count == 1 ? "" : "s")} given).";
            return null;
        }

        var (urlText, file) = verb == TransferVerb.Put ? (positional[1], positional[0]) : (positional[0], positional[1]);
        if (!Uri.TryCreate(urlText, UriKind.Absolute, out var url) || (url.Scheme != Uri.UriSchemeHttp && url.Scheme != Uri.UriSchemeHttps))
        {
            error = $"'{urlText}' is not an http:// or https:// URL ({shape}).";
            return null;
        }

        if (string.IsNullOrWhiteSpace(file))
        {
            error = $"the file name is empty ({shape}).";
            return null;
        }

        if (token is not null && (token.Length == 0 || token.Any(c => char.IsWhiteSpace(c) || char.IsControl(c))))
        {
            error = "--token must be one word: no spaces or control characters.";
            return null;
        }

        if (pin is not null)
        {
            // Accept the "AB:CD:..." form certificate tools print as well as plain hex.
            pin = pin.Replace(":", "", StringComparison.Ordinal).ToUpperInvariant();
            if (pin.Length != 64 || !pin.All(char.IsAsciiHexDigit))
            {
                error = "--certificate-sha256 needs the 64 hex digits of a SHA-256.";
                return null;
            }

            if (url.Scheme != Uri.UriSchemeHttps)
            {
                error = string.Create(CultureInfo.InvariantCulture, $"--certificate-sha256 is for https:// URLs; {url.Scheme}:// has no certificate.");
                return null;
            }
        }

        return new ClientOptions
        {
            Url = url,
            File = file,
            Token = token,
            IfNoneMatch = ifNoneMatch,
            NoProgress = noProgress,
            CertificateSha256 = pin,
        };
    }
}
