using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;

namespace Freight.Bench.Cli;

/// <summary>
/// Options whose values have constraints, defined once with System.CommandLine: each parses its own token and, when
/// the value is not allowed, reports an error that names the option (exit code 2 through <see cref="CliRun"/>).
/// </summary>
public static class CliValues
{
    /// <summary>What a number of seconds looks like, for <see cref="Number"/>'s message: "3s" is a common slip.</summary>
    public const string Seconds = "seconds (e.g. 3 or 0.5)";

    /// <summary>A whole number above 0.</summary>
    public static Option<int?> PositiveInt(string name, string description, string helpName = "N", params string[] aliases) =>
        WholeNumber(name, description, 1, int.MaxValue, "a positive whole number", helpName, aliases);

    /// <summary>A whole number from <paramref name="min"/> to <paramref name="max"/>; the error says it <paramref name="needs"/> ("a process id").</summary>
    public static Option<int?> WholeNumber(string name, string description, int min, int max, string needs, string helpName = "N", params string[] aliases) => new(name, aliases)
    {
        Description = description,
        HelpName = helpName,
        CustomParser = result => int.TryParse(Token(result), NumberStyles.None, CultureInfo.InvariantCulture, out var value) && value >= min && value <= max
            ? value
            : Fail<int?>(result, $"{Named(result, name)} needs {needs}, not '{Token(result)}'."),
    };

    /// <summary>
    /// A finite number above 0 (or, with <paramref name="zeroAllowed"/>, 0 or more), of <paramref name="unit"/> when
    /// given (<see cref="Seconds"/>, "requests a second"): the error says what the number counts.
    /// </summary>
    public static Option<double?> Number(string name, string description, bool zeroAllowed = false, string helpName = "S", string? unit = null, params string[] aliases) => new(name, aliases)
    {
        Description = description,
        HelpName = helpName,
        CustomParser = result => double.TryParse(Token(result), NumberStyles.Float, CultureInfo.InvariantCulture, out var value) && double.IsFinite(value) && (zeroAllowed ? value >= 0 : value > 0)
            ? value
            : Fail<double?>(result, $"{Named(result, name)} needs {(zeroAllowed ? "a number" : "a positive number")}{(unit is null ? "" : " of " + unit)}{(zeroAllowed ? ", 0 or more" : "")}, not '{Token(result)}'."),
    };

    /// <summary>One of <paramref name="allowed"/> (exactly as written); the error lists them.</summary>
    public static Option<string?> OneOf(string name, string description, IReadOnlyList<string> allowed, string noun) => new(name)
    {
        Description = description,
        HelpName = string.Join('|', allowed),
        CustomParser = result => allowed.Contains(Token(result))
            ? Token(result)
            : Fail<string?>(result, $"{name}: unknown {noun} '{Token(result)}'; {noun}s: {string.Join(", ", allowed)}."),
    };

    /// <summary>
    /// A SHA-256 as 64 hex digits, plain or in the "AB:CD:…" form certificate tools print; its value is the plain hex
    /// in upper case.
    /// </summary>
    public static Option<string?> Sha256Hex(string name, string description, params string[] aliases) => new(name, aliases)
    {
        Description = description,
        HelpName = "HEX",
        CustomParser = result =>
        {
            var hex = Token(result).Replace(":", "", StringComparison.Ordinal).ToUpperInvariant();
            return hex.Length == 64 && hex.All(char.IsAsciiHexDigit)
                ? hex
                : Fail<string?>(result, $"{name} needs the 64 hex digits of a SHA-256.");
        },
    };

    /// <summary>An absolute http:// or https:// URL.</summary>
    public static Uri? HttpUrl(ArgumentResult result, string what)
    {
        ArgumentNullException.ThrowIfNull(result);
        return Uri.TryCreate(Token(result), UriKind.Absolute, out var uri) && (uri.Scheme == Uri.UriSchemeHttp || uri.Scheme == Uri.UriSchemeHttps)
            ? uri
            : Fail<Uri?>(result, $"{what} needs an http:// or https:// URL, not '{Token(result)}'.");
    }

    /// <summary>
    /// For a list of file arguments: System.CommandLine hands an unknown <c>--option</c> to an argument that takes
    /// more values, so without this a mistyped option would be read as a file name. A lone <c>-</c> stays a value.
    /// </summary>
    public static void NoOptionLike(ArgumentResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        foreach (var token in result.Tokens)
        {
            if (IsOptionLike(token.Value))
            {
                result.AddError(Unrecognized(token.Value));
            }
        }
    }

    /// <summary>
    /// Whether an argument holds a token that reads as an option. A command's validator checks this before adding an
    /// error of its own: System.CommandLine validates arguments only when the command's validators added none, so
    /// "report needs an output" would otherwise hide that the output option was mistyped.
    /// </summary>
    public static bool HasOptionLike(ArgumentResult? result) => result is not null && result.Tokens.Any(token => IsOptionLike(token.Value));

    /// <summary>A token that reads as an option (<c>--x</c>, <c>-x</c>) rather than a value; a lone <c>-</c> is a value.</summary>
    public static bool IsOptionLike(string token)
    {
        ArgumentNullException.ThrowIfNull(token);
        return token.Length > 1 && token[0] == '-';
    }

    /// <summary>System.CommandLine's own message for an unknown option, so every command words it alike.</summary>
    public static string Unrecognized(string token) => $"Unrecognized command or argument '{token}'.";

    /// <summary>The value given (the last one when an option is repeated).</summary>
    public static string Token(ArgumentResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        return result.Tokens.Count == 0 ? "" : result.Tokens[^1].Value;
    }

    /// <summary>The option as the user wrote it (<c>-d</c> or <c>--duration</c>), so the error names what they typed.</summary>
    private static string Named(ArgumentResult result, string name) => (result.Parent as OptionResult)?.IdentifierToken?.Value ?? name;

    public static T Fail<T>(ArgumentResult result, string message)
    {
        ArgumentNullException.ThrowIfNull(result);
        result.AddError(message);
        return default!;
    }
}
