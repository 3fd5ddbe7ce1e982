using System.CommandLine;
using Freight.Bench;
using Freight.Bench.Cli;
using Freight.Bench.Client;
using Freight.Bench.Load.Command;
using Freight.Bench.Measure;
using Freight.Bench.Reports;
using Freight.Server.Hosting;

namespace Freight.Cli;

/// <summary>
/// The <c>freight</c> command line: one root with a subcommand per verb, each defined once with System.CommandLine
/// (generated <c>--help</c>, validation with messages that name the option, exit code 2 on usage errors).
/// </summary>
public static class FreightCommandLine
{
    /// <summary>The root for <paramref name="args"/> (serve hands them on as typed); progress lines go to a terminal only.</summary>
    public static RootCommand Create(string[] args, TextWriter output, TextWriter error, bool errorIsTerminal)
    {
        ArgumentNullException.ThrowIfNull(args);
        var tcpSink = new Command("tcp-sink", "Internal: the far end of the bench's TCP ceiling probe (started by freight bench).") { Hidden = true };
        tcpSink.SetAction((_, _) => TcpSink.RunAsync(output, CancellationToken.None));
        return CliRun.Root(
            "Freight: a file transfer service, and a bench that verifies every byte and measures throughput, latency and CPU seconds per GiB on each side (docs/server.md, docs/bench.md, docs/load.md).",
            ServeCommand.Create(() => args[(Array.IndexOf(args, "serve") + 1)..], output, error),
            BenchCommand.Create(output, error),
            LoadCommand.Create(output, error),
            CompareCommand.Create(output, error),
            ReportCommand.Create(output, error),
            ClientCommand.Create(TransferVerb.Put, output, error, errorIsTerminal),
            ClientCommand.Create(TransferVerb.Get, output, error, errorIsTerminal),
            tcpSink);
    }

    /// <summary>Parses and runs <paramref name="args"/> as <c>freight ARGS</c> would (Ctrl+C is the caller's token).</summary>
    public static Task<int> RunAsync(string[] args, TextWriter output, TextWriter error, CancellationToken cancellationToken = default) =>
        CliRun.RunAsync(Create(args, output, error, errorIsTerminal: false), args, output, error, cancellationToken);
}
