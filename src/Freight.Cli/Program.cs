using Freight.Bench;
using Freight.Bench.Client;
using Freight.Bench.Load.Command;
using Freight.Bench.Measure;
using Freight.Bench.Progress;
using Freight.Bench.Reports;
using Freight.Server.Hosting;

// freight serve | bench | load | compare | report | put | get — see docs/server.md, docs/bench.md and docs/load.md.
const string Usage = """
    usage: freight <command> [options]
      serve   run the file transfer service and the lab (freight serve --help)
      bench   measure the lab's variants against an embedded server or --target URL (freight bench --help)
      load    load any URL: verified responses, client and server cost, which side saturated (freight load --help)
      compare show bench result files side by side, crank-style, or scenarios of one run (freight compare --help)
      report  render result files as an HTML page with charts, Markdown tables or CSV (freight report --help)
      put     upload FILE to URL, digest sent and checked: freight put FILE URL (freight put --help)
      get     download URL to FILE, resumable, digest checked: freight get URL FILE (freight get --help)
    """;

if (args.Length == 0 || args[0] is "-h" or "--help" or "help")
{
    Console.WriteLine(Usage);
    return args.Length == 0 ? 2 : 0;
}

var rest = args[1..];
switch (args[0])
{
    case "serve":
        return await FreightServer.RunAsync(rest, Console.Out, Console.Error);

    case "bench":
        if (rest is ["--help"] or ["-h"])
        {
            Console.WriteLine(BenchOptions.Usage);
            return 0;
        }

        var options = BenchOptions.Parse(rest, out var error);
        if (options is null)
        {
            await Console.Error.WriteLineAsync($"error: {error}");
            await Console.Error.WriteLineAsync(BenchOptions.Usage);
            return 2;
        }

        using (var cancel = new CancellationTokenSource())
        {
            Console.CancelKeyPress += (_, e) =>
            {
                e.Cancel = true;
                cancel.Cancel();
            };
            // Live on a terminal, plain lines in logs and with --no-progress; disposed on the way out, Ctrl+C included.
            using var progress = BenchProgress.ForConsole(options);
            try
            {
                return await new BenchRunner(options, Console.Out, progress).RunAsync(cancel.Token);
            }
            catch (OperationCanceledException) when (cancel.IsCancellationRequested)
            {
                // Ctrl+C: the servers and peers the bench started are disposed on the way out; no figures.
                await Console.Error.WriteLineAsync("bench: canceled");
                return 130;
            }
        }

    case "load":
        using (var cancel = new CancellationTokenSource())
        {
            // Ctrl+C ends the run early; what was measured until then is still reported.
            Console.CancelKeyPress += (_, e) =>
            {
                e.Cancel = !cancel.IsCancellationRequested;
                cancel.Cancel();
            };
            return await LoadCommand.RunAsync(rest, Console.Out, Console.Error, cancel.Token);
        }

    case "compare":
        return await CompareCommand.RunAsync(rest, Console.Out, Console.Error);

    case "report":
        return await ReportCommand.RunAsync(rest, Console.Out, Console.Error);

    case "put" or "get":
        using (var cancel = new CancellationTokenSource())
        {
            // The first Ctrl+C stops the transfer cleanly (get keeps FILE.partial for a resume); a second one kills.
            Console.CancelKeyPress += (_, e) =>
            {
                e.Cancel = !cancel.IsCancellationRequested;
                cancel.Cancel();
            };
            var progressOnTerminal = !Console.IsErrorRedirected;
            return args[0] == "put"
                ? await PutCommand.RunAsync(rest, Console.Out, Console.Error, progressOnTerminal, cancel.Token)
                : await GetCommand.RunAsync(rest, Console.Out, Console.Error, progressOnTerminal, cancel.Token);
        }

    case "tcp-sink":
        // Internal: the far end of the bench's TCP ceiling probe (started by freight bench).
        return await TcpSink.RunAsync(Console.Out, CancellationToken.None);

    default:
        await Console.Error.WriteLineAsync($"error: unknown command '{args[0]}'.");
        await Console.Error.WriteLineAsync(Usage);
        return 2;
}
