using System.CommandLine;
using System.CommandLine.Parsing;
using Freight.Lab.Text;
using CliCommand = System.CommandLine.Command;

namespace Freight.Bench.Cli;

/// <summary>
/// Parses and runs a <c>freight</c> command line: usage errors (an unknown option, a missing or invalid value) print
/// <c>error: …</c> lines and where the help is on stderr and exit <see cref="UsageError"/>; <c>--help</c> prints the
/// help System.CommandLine generates from the options' definitions and exits 0.
/// </summary>
public static class CliRun
{
    public const int UsageError = 2;

    /// <summary>The root every freight command hangs under, named as users type it (help reads "freight bench").</summary>
    public static RootCommand Root(string description, params CliCommand[] commands)
    {
        ArgumentNullException.ThrowIfNull(commands);
        var root = new RootCommand(description) { HelpName = "freight" };
        foreach (var command in commands)
        {
            root.Subcommands.Add(command);
        }

        return root;
    }

    /// <summary>Parses <paramref name="args"/> (what follows <c>freight</c>) against <paramref name="root"/> and runs the command they name.</summary>
    public static async Task<int> RunAsync(RootCommand root, IReadOnlyList<string> args, TextWriter output, TextWriter error, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(root);
        ArgumentNullException.ThrowIfNull(args);
        var parse = root.Parse(args);
        if (parse.Errors.Count > 0)
        {
            return await ReportAsync(parse, error);
        }

        return await InvokeAsync(parse, output, error, cancellationToken);
    }

    /// <summary>Runs a parse without errors; Ctrl+C is the caller's (<paramref name="cancellationToken"/>), never a forced exit.</summary>
    public static Task<int> InvokeAsync(ParseResult parse, TextWriter output, TextWriter error, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(parse);
        return parse.InvokeAsync(new InvocationConfiguration { Output = output, Error = error, ProcessTerminationTimeout = null }, cancellationToken);
    }

    /// <summary>Prints the parse's errors and where its command's help is; returns <see cref="UsageError"/>.</summary>
    public static async Task<int> ReportAsync(ParseResult parse, TextWriter error)
    {
        ArgumentNullException.ThrowIfNull(parse);
        ArgumentNullException.ThrowIfNull(error);
        foreach (var problem in Problems(parse).Select(problem => WithSuggestion(parse, problem)))
        {
            await error.WriteLineAsync($"error: {problem}");
        }

        await error.WriteLineAsync($"usage: {HelpCommand(parse)} --help");
        return UsageError;
    }

    /// <summary>
    /// Parses <paramref name="args"/> (what follows the command's name) with <paramref name="command"/> under a freight
    /// root, without running it: the parse, or null and its errors in one line (what the commands' Parse methods return).
    /// </summary>
    public static ParseResult? Parse(CliCommand command, IReadOnlyList<string> args, out string? error)
    {
        ArgumentNullException.ThrowIfNull(command);
        ArgumentNullException.ThrowIfNull(args);
        var parse = Root(command.Description ?? "", command).Parse([command.Name, .. args]);
        error = parse.Errors.Count == 0 ? null : string.Join(" ", parse.Errors.Select(e => e.Message));
        return error is null ? parse : null;
    }

    /// <summary>
    /// The parse's errors as the user should read them. System.CommandLine gives an unknown <c>--option</c> written
    /// before an argument's value to that argument, and every value after it shifts one place: the next argument gets a
    /// value that is not its own ("URL needs an http:// URL, not 'a.bin'"), and the last is left over, unrecognized. Those
    /// follow from the one mistake, so when an argument took an option-like token, only the unknown options are named.
    /// Likewise the value right after an unknown option ('3' in <c>--durration 3</c>) is that option's, not a second mistake.
    /// </summary>
    private static IEnumerable<string> Problems(ParseResult parse)
    {
        var taken = parse.CommandResult.Children.OfType<ArgumentResult>()
            .SelectMany(argument => argument.Tokens.Select(token => token.Value).Where(CliValues.IsOptionLike))
            .ToList();
        if (taken.Count > 0)
        {
            return taken.Concat(parse.UnmatchedTokens.Where(CliValues.IsOptionLike)).Distinct(StringComparer.Ordinal).Select(CliValues.Unrecognized);
        }

        var unmatched = parse.UnmatchedTokens;
        var optionsValues = new HashSet<string>(StringComparer.Ordinal);
        for (var i = 0; i + 1 < parse.Tokens.Count; i++)
        {
            var (option, value) = (parse.Tokens[i].Value, parse.Tokens[i + 1].Value);
            if (CliValues.IsOptionLike(option) && !CliValues.IsOptionLike(value) && unmatched.Contains(option) && unmatched.Contains(value))
            {
                optionsValues.Add(CliValues.Unrecognized(value));
            }
        }

        return parse.Errors.Select(e => e.Message).Where(message => !optionsValues.Contains(message));
    }

    /// <summary>
    /// An unknown <c>--option</c>'s message, with the command's option it is likely a typo of
    /// (<c>--expect-staus</c>: "did you mean --expect-status?"), as serve says of a mistyped setting.
    /// </summary>
    private static string WithSuggestion(ParseResult parse, string problem)
    {
        foreach (var token in parse.Tokens)
        {
            if (token.Value.StartsWith("--", StringComparison.Ordinal) && problem == CliValues.Unrecognized(token.Value))
            {
                var options = parse.CommandResult.Command.Options.SelectMany(option => option.Aliases.Prepend(option.Name));
                return ClosestName.Find(token.Value, options.Where(name => name.StartsWith("--", StringComparison.Ordinal))) is { } closest
                    ? $"{problem.TrimEnd('.')} (did you mean {closest}?)"
                    : problem;
            }
        }

        return problem;
    }

    private static string HelpCommand(ParseResult parse)
    {
        var command = parse.CommandResult.Command;
        return command is RootCommand ? "freight" : $"freight {command.Name}";
    }
}
