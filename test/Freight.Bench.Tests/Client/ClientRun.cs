using Freight.Bench.Client;

namespace Freight.Bench.Tests.Client;

/// <summary>One run of put or get as the CLI runs it, with what it wrote; stderr is never a terminal here.</summary>
internal sealed record ClientRun(int ExitCode, string Output, string Error)
{
    public static Task<ClientRun> PutAsync(params string[] args) => RunAsync(PutCommand.RunAsync, args);

    public static Task<ClientRun> GetAsync(params string[] args) => RunAsync(GetCommand.RunAsync, args);

    public static async Task<ClientRun> RunAsync(
        Func<IReadOnlyList<string>, TextWriter, TextWriter, bool, CancellationToken, Task<int>> command, string[] args, CancellationToken cancellationToken = default)
    {
        var output = new StringWriter();
        var error = new StringWriter();
        var exitCode = await command(args, output, error, false, cancellationToken);
        return new ClientRun(exitCode, output.ToString(), error.ToString());
    }

    /// <summary>Asserts the exit code, showing what the command wrote when it differs.</summary>
    public void AssertExit(int expected) =>
        Assert.True(ExitCode == expected, $"exit code {ExitCode}, not {expected}; stdout: {Output} stderr: {Error}");

    /// <summary>Whether anything written holds a carriage return or an escape sequence.</summary>
    public bool HasControlCharacters => (Output + Error).Any(c => c is '\r' or '\u001b');
}
