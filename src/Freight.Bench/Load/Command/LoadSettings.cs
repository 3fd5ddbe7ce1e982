using Freight.Bench.Load.Blame;
using Freight.Bench.Load.Engine;

namespace Freight.Bench.Load.Command;

/// <summary>A validated <c>freight load</c> command line: the engine's options plus what the command does around the run.</summary>
public sealed record LoadSettings
{
    public required LoadOptions Engine { get; init; }

    /// <summary><c>payload</c>, <c>file</c> or <c>none</c>: where the request body came from.</summary>
    public string BodySource { get; init; } = "none";

    public bool Multipart { get; init; }

    /// <summary>Measured runs, one after another on fresh connections (<c>--runs</c>): what compare draws intervals from.</summary>
    public int Runs { get; init; } = 1;

    /// <summary>The server process to sample (<c>--server-pid</c>, or the one <c>--server-process</c> named).</summary>
    public int? ServerProcessId { get; init; }

    /// <summary>The processes sampled with <see cref="ServerProcessId"/>, their figures summed: a pre-fork server's workers.</summary>
    public IReadOnlyList<int> ServerWorkers { get; init; } = [];

    /// <summary>Processes that join <see cref="ServerWorkers"/> once seen holding a connection on its port (a Node cluster's workers); null for none.</summary>
    public WorkerSearch? ServerWorkerSearch { get; init; }

    /// <summary>
    /// Said at the start when the server sampled is not the process named, or not alone: the child of it that listens on
    /// the URL's port, a pre-fork server's workers.
    /// </summary>
    public string? ServerNote { get; init; }

    /// <summary>
    /// <c>--through-proxy</c>: the proxy in front of the server, the process listening on the URL's port, sampled as the
    /// server is; null without the option.
    /// </summary>
    public int? ProxyProcessId { get; init; }

    /// <summary>The proxy's workers (nginx's), sampled with <see cref="ProxyProcessId"/>, their figures summed.</summary>
    public IReadOnlyList<int> ProxyWorkers { get; init; } = [];

    /// <summary>Processes that join <see cref="ProxyWorkers"/> once seen holding a connection on its port, as the server's.</summary>
    public WorkerSearch? ProxyWorkerSearch { get; init; }

    /// <summary>Said at the start with <see cref="ServerNote"/>: which processes are measured as the proxy.</summary>
    public string? ProxyNote { get; init; }

    public string? JsonPath { get; init; }

    public string? MarkdownPath { get; init; }

    public string? CsvDirectory { get; init; }

    public string? HtmlPath { get; init; }

    public bool Progress { get; init; } = true;
}
