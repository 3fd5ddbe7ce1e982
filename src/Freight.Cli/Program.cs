using Freight.Bench.Cli;
using Freight.Cli;

// freight serve | bench | load | compare | report | put | get — see docs/server.md, docs/bench.md and docs/load.md;
// freight --help and freight COMMAND --help are generated from the commands' definitions (FreightCommandLine).
var parse = FreightCommandLine.Create(args, Console.Out, Console.Error, errorIsTerminal: !Console.IsErrorRedirected).Parse(args);
if (parse.Errors.Count > 0)
{
    return await CliRun.ReportAsync(parse, Console.Error);
}

using var cancel = new CancellationTokenSource();
switch (parse.CommandResult.Command.Name)
{
    case "bench":
        // Ctrl+C: the servers and peers the bench started are disposed on the way out; it exits 130, no figures.
        Console.CancelKeyPress += (_, e) =>
        {
            e.Cancel = true;
            cancel.Cancel();
        };
        break;

    case "load" or "put" or "get":
        // The first Ctrl+C ends the run cleanly (load still reports what it measured; get keeps FILE.partial for a
        // resume); a second one kills.
        Console.CancelKeyPress += (_, e) =>
        {
            e.Cancel = !cancel.IsCancellationRequested;
            cancel.Cancel();
        };
        break;

    // serve: the host stops on Ctrl+C and SIGTERM itself; tcp-sink ends when its input closes, or is killed.
}

return await CliRun.InvokeAsync(parse, Console.Out, Console.Error, cancel.Token);
