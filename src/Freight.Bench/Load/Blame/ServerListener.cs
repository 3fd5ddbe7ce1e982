using System.Globalization;
using System.Net;
using System.Net.Sockets;
using Freight.Bench.Reports;

namespace Freight.Bench.Load.Blame;

/// <summary>
/// Checks that the server process named for blame (<c>--server-pid</c>, <c>--server-process</c>) is the one that
/// answers a local URL: the one holding the socket listening on its port (the socket's inode in
/// <c>/proc/net/tcp</c> and <c>tcp6</c>, found among <c>/proc/PID/fd</c>'s links). <c>dotnet run</c>'s own process is the
/// SDK, its app a child of it: measured, the SDK read "3 % of a core, neither side saturated" for a server that was
/// busy. A pre-fork server (nginx: a master and its workers) is measured whole: the workers inherit the listening
/// socket and do the work, the master holds it and does almost nothing. A server whose workers hold no listening
/// socket (Node's cluster: the primary accepts and hands each connection to a worker) has them found during the run, by
/// the connections on its port they hold (<see cref="WorkerSearch"/>). A URL that is not on this machine (not
/// 127.0.0.0/8, ::1 or localhost) cannot be checked and is not.
/// </summary>
public static class ServerListener
{
    /// <summary>
    /// The process to sample, and a line to say at the start when it is not the one given (or not alone); or why none is.
    /// </summary>
    public sealed record Choice(int? ProcessId, string? Note, string? Problem)
    {
        /// <summary>
        /// The processes sampled with <see cref="ProcessId"/>, their figures summed: its descendants that hold the same
        /// listening socket and run the same program (a pre-fork server's workers). Empty for a server of one process, or
        /// one whose workers hold its connections only (<see cref="Search"/>).
        /// </summary>
        public IReadOnlyList<int> Workers { get; init; } = [];

        /// <summary>
        /// Descendants of <see cref="ProcessId"/> running its program that hold no listening socket: each becomes a worker
        /// once seen holding a connection on the port (<see cref="WorkerSearch"/>); null when there are none.
        /// </summary>
        public WorkerSearch? Search { get; init; }
    }

    /// <summary>
    /// <paramref name="processId"/> when it listens on <paramref name="url"/>'s port (or the URL is not local, or
    /// off Linux); else its one descendant that does, with a note saying so; else the problem, naming the process
    /// that does listen when it can be read. <paramref name="option"/> names the process in messages (<c>--server-pid 12</c>).
    /// The process that listens comes with its workers (<see cref="Choice.Workers"/>); a worker given leads to its
    /// master, the process above it that holds the socket too: either way the note names them all.
    /// </summary>
    public static Choice Check(Uri url, int processId, string option)
    {
        ArgumentNullException.ThrowIfNull(url);
        if (Listeners(url) is not { } listeners)
        {
            return new Choice(processId, null, null);
        }

        var port = ":" + url.Port.ToString(CultureInfo.InvariantCulture);
        var given = $"{option} ({Describe(processId)})";
        var parents = ParentsByProcess();
        if (listeners.Holders.Contains(processId))
        {
            var (master, workers) = Group(processId, listeners.Holders, parents);
            var note = workers.Count == 0 ? null
                : $"server: {Members(master, workers)}, which listen on {port}" + (master == processId ? "" : $" (PID {processId}, given, is one of the workers)");
            return new Choice(master, note, null) { Workers = workers, Search = CandidatesOf(master, workers, parents, [url.Port]) };
        }

        // A container's server listens in its own network namespace, reached through a proxy or NAT: not in our tables.
        if (NetworkNamespace(processId) is { } theirs && theirs != NetworkNamespace(Environment.ProcessId))
        {
            return new Choice(processId, $"server: PID {processId} ({Describe(processId)}) runs in another network namespace (a container?): not checked that it listens on {port}", null);
        }

        if (listeners.Inodes.Count == 0)
        {
            return new Choice(null, null, $"{given}: nothing listens on {url.Host}{port}; start the server first.");
        }

        // A master below the process given, with its workers, is one server; two masters are two.
        var descendants = Masters(listeners.Holders.Where(pid => IsDescendant(pid, processId, parents)), listeners.Holders, parents);
        if (descendants.Count == 1)
        {
            var (child, workers) = Group(descendants[0], listeners.Holders, parents);
            var relation = parents.GetValueOrDefault(child) == processId ? "a child" : "a descendant";
            return new Choice(child, workers.Count == 0
                ? $"server: PID {child} ({Describe(child)}), {relation} of {processId}, listens on {port}"
                : $"server: PID {child} ({Describe(child)}), {relation} of {processId}, and its {CountText.Format(workers.Count, "worker")} ({string.Join(", ", workers)}), which listen on {port}", null)
            {
                Workers = workers,
                Search = CandidatesOf(child, workers, parents, [url.Port]),
            };
        }

        if (descendants.Count > 1)
        {
            return new Choice(null, null, $"{given} does not listen on {port}; {descendants.Count} of its child processes do ({Name(descendants)}): name one with --server-pid.");
        }

        if (listeners.Holders.Count == 0 && !CanReadSockets(processId))
        {
            // Another user's server (a root nginx): its sockets are closed to us, so is the check; /proc/PID/stat is not.
            return new Choice(processId, $"server: PID {processId} ({Describe(processId)}): its sockets cannot be read (another user's); not checked that it listens on {port}", null);
        }

        if (listeners.Holders.Count == 0)
        {
            return new Choice(null, null, $"{given} does not listen on {port}, nor does a child of it; the process that does cannot be read (another user's).");
        }

        var masters = Masters(listeners.Holders, listeners.Holders, parents);
        var server = Group(masters[0], listeners.Holders, parents);
        var listening = masters.Count > 1 ? Name(masters) + " do (they share the socket)"
            : server.Workers.Count == 0 ? Name([server.Master]) + " does"
            : Members(server.Master, server.Workers) + " do";

        // A server behind a local proxy (nginx on :8480 passing to it on :5180): the process given listens, elsewhere.
        if (Ports(ListeningHeld().GetValueOrDefault(processId)) is { Count: > 0 } own)
        {
            return new Choice(null, null, $"{given} listens on {PortList(own)}, not on {port}; {listening}: a proxy in front of it? "
                + $"Add --through-proxy to measure both, the server and the proxy, or name the process on {port} with --server-pid.");
        }

        return new Choice(null, null, $"{given} does not listen on {port}; {listening}: name {(masters.Count > 1 ? "one" : "it")} with --server-pid.");
    }

    /// <summary>
    /// The server behind a local proxy (<c>--through-proxy</c>): <paramref name="processId"/>, or its one descendant,
    /// listening on a local port other than the URL's, with its workers; and the proxy, the process that listens on the
    /// URL's port, with its workers. Either a problem (the same in both choices) or two processes to sample.
    /// </summary>
    public static (Choice Server, Choice Proxy) CheckBehindProxy(Uri url, int processId, string option)
    {
        ArgumentNullException.ThrowIfNull(url);
        (Choice, Choice) Refuse(string problem) => (new Choice(null, null, problem), new Choice(null, null, problem));
        if (Listeners(url) is not { } listeners)
        {
            return Refuse($"--through-proxy: the proxy is the process listening on the URL's port, so the URL must be on this machine (127.0.0.1, ::1, localhost); {url.Host} is not.");
        }

        var port = ":" + url.Port.ToString(CultureInfo.InvariantCulture);
        var given = $"{option} ({Describe(processId)})";
        var parents = ParentsByProcess();
        if (listeners.Holders.Contains(processId))
        {
            return Refuse($"--through-proxy: {given} listens on {port} itself, with no proxy in front of it: leave --through-proxy out.");
        }

        if (listeners.Inodes.Count == 0)
        {
            return Refuse($"--through-proxy: nothing listens on {url.Host}{port}; start the proxy first.");
        }

        if (listeners.Holders.Count == 0)
        {
            return Refuse($"--through-proxy: the process listening on {port} cannot be read (another user's): run as its user, or root, to measure the proxy.");
        }

        var proxies = Masters(listeners.Holders, listeners.Holders, parents);
        if (proxies.Count > 1)
        {
            return Refuse($"--through-proxy: {Name(proxies)} listen on {port} (they share the socket): which one is the proxy cannot be told.");
        }

        var (proxy, proxyWorkers) = Group(proxies[0], listeners.Holders, parents);
        var proxyChoice = new Choice(proxy, $"proxy: {(proxyWorkers.Count == 0 ? Name([proxy]) + ", which listens" : Members(proxy, proxyWorkers) + ", which listen")} on {port}", null)
        {
            Workers = proxyWorkers,
            Search = CandidatesOf(proxy, proxyWorkers, parents, [url.Port]),
        };

        // The server: the process given when it listens on a TCP port, else its one descendant that does (dotnet run's app).
        var held = ListeningHeld();
        var candidates = held.ContainsKey(processId)
            ? [processId]
            : held.Keys.Where(pid => IsDescendant(pid, processId, parents) && !listeners.Holders.Contains(pid)).ToList();
        var servers = candidates.Select(pid => Group(pid, SameSocket(pid, held), parents).Master).Distinct().Order().ToList();
        if (servers.Count == 0)
        {
            return Refuse($"--through-proxy: {given} listens on no TCP port, nor does a child of it: is it the server behind the proxy on {port}?");
        }

        if (servers.Count > 1)
        {
            return Refuse($"--through-proxy: {given} does not listen itself; {servers.Count} of its child processes do ({Name(servers)}): name one with --server-pid.");
        }

        var (server, workers) = Group(servers[0], SameSocket(servers[0], held), parents);
        var serverPorts = Ports(held.GetValueOrDefault(server));
        var ports = PortList(serverPorts);
        var who = workers.Count == 0 ? Name([server]) : Members(server, workers);
        var relation = server == processId ? "" : $", {(parents.GetValueOrDefault(server) == processId ? "a child" : "a descendant")} of {processId},";
        var listen = workers.Count == 0 ? "listens" : "listen";
        return (new Choice(server, $"server: {who}{relation} {listen} on {ports}, behind the proxy on {port}", null)
        {
            Workers = workers,
            Search = CandidatesOf(server, workers, parents, serverPorts),
        }, proxyChoice);
    }

    /// <summary>The processes holding one of the listening sockets <paramref name="processId"/> holds (itself included).</summary>
    private static HashSet<int> SameSocket(int processId, Dictionary<int, HashSet<long>> held)
    {
        var own = held.GetValueOrDefault(processId) ?? [];
        return [.. held.Where(entry => entry.Value.Overlaps(own)).Select(entry => entry.Key)];
    }

    /// <summary>The ports of the listening sockets among <paramref name="inodes"/>, in order; empty for none.</summary>
    private static List<int> Ports(HashSet<long>? inodes)
    {
        if (inodes is null)
        {
            return [];
        }

        var ports = ListeningPorts();
        return [.. inodes.Where(ports.ContainsKey).Select(inode => ports[inode]).Distinct().Order()];
    }

    /// <summary>":5180, :5181".</summary>
    private static string PortList(IEnumerable<int> ports) => string.Join(", ", ports.Select(p => ":" + p.ToString(CultureInfo.InvariantCulture)));

    /// <summary>Every TCP socket in LISTEN on this machine (our network namespace), by inode, with its port.</summary>
    private static Dictionary<long, int> ListeningPorts()
    {
        var ports = new Dictionary<long, int>();
        foreach (var socket in TcpSockets())
        {
            if (socket.State == Listen)
            {
                ports[socket.Inode] = socket.LocalPort;
            }
        }

        return ports;
    }

    /// <summary>
    /// Of <paramref name="processIds"/>, the ones holding an established TCP connection whose local port is one of
    /// <paramref name="ports"/>: a connection a server accepted there (a client's own has that port as its remote one).
    /// A Node cluster's workers hold no listening socket: the primary accepts and hands each connection to a worker.
    /// </summary>
    public static List<int> HoldingConnections(IReadOnlyCollection<int> processIds, IReadOnlyCollection<int> ports)
    {
        ArgumentNullException.ThrowIfNull(processIds);
        ArgumentNullException.ThrowIfNull(ports);
        var accepted = new HashSet<long>();
        foreach (var socket in TcpSockets())
        {
            if (socket.State == Established && ports.Contains(socket.LocalPort))
            {
                accepted.Add(socket.Inode);
            }
        }

        return accepted.Count == 0 ? [] : [.. processIds.Where(pid => SocketInodes(pid).Exists(accepted.Contains))];
    }

    // /proc/net/tcp's states (include/net/tcp_states.h).
    private const string Established = "01";
    private const string Listen = "0A";

    /// <summary>A row of <c>/proc/net/tcp</c> or <c>tcp6</c>: the local address (null when unreadable) and port, the state, the inode.</summary>
    private readonly record struct TcpSocket(IPAddress? Local, int LocalPort, string State, long Inode);

    /// <summary>Every TCP socket of this machine (our network namespace) with an inode, IPv4's and IPv6's.</summary>
    private static List<TcpSocket> TcpSockets()
    {
        var sockets = new List<TcpSocket>();
        foreach (var table in new[] { "/proc/net/tcp", "/proc/net/tcp6" })
        {
            try
            {
                foreach (var line in File.ReadLines(table).Skip(1))
                {
                    var fields = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
                    var colon = fields.Length >= 10 ? fields[1].LastIndexOf(':') : -1;
                    if (colon >= 0
                        && int.TryParse(fields[1].AsSpan(colon + 1), NumberStyles.HexNumber, CultureInfo.InvariantCulture, out var port)
                        && long.TryParse(fields[9], NumberStyles.None, CultureInfo.InvariantCulture, out var inode) && inode > 0)
                    {
                        sockets.Add(new TcpSocket(ParseAddress(fields[1][..colon]), port, fields[3], inode));
                    }
                }
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                // No IPv6 (tcp6 absent): no socket there.
            }
        }

        return sockets;
    }

    /// <summary>The processes this user can read that hold a listening TCP socket, with the inodes of those they hold.</summary>
    private static Dictionary<int, HashSet<long>> ListeningHeld()
    {
        var listening = ListeningPorts();
        var held = new Dictionary<int, HashSet<long>>();
        foreach (var pid in ProcessIds())
        {
            foreach (var inode in SocketInodes(pid))
            {
                if (listening.ContainsKey(inode))
                {
                    (held.TryGetValue(pid, out var set) ? set : held[pid] = []).Add(inode);
                }
            }
        }

        return held;
    }

    /// <summary>The inodes of the sockets a process holds (<c>/proc/PID/fd</c>'s "socket:[N]" links); none when it cannot be read.</summary>
    private static List<long> SocketInodes(int processId)
    {
        var inodes = new List<long>();
        try
        {
            foreach (var descriptor in Directory.EnumerateFileSystemEntries($"/proc/{processId.ToString(CultureInfo.InvariantCulture)}/fd"))
            {
                if (new FileInfo(descriptor).LinkTarget is { } target && target.StartsWith("socket:[", StringComparison.Ordinal)
                    && long.TryParse(target.AsSpan(8, target.Length - 9), NumberStyles.None, CultureInfo.InvariantCulture, out var inode))
                {
                    inodes.Add(inode);
                }
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Exited while we looked, or another user's.
        }

        return inodes;
    }

    /// <summary>
    /// Of <paramref name="candidates"/> (the processes <c>--server-process</c> matched), the ones holding the socket
    /// listening on <paramref name="url"/>'s port, a pre-fork server's workers counted as their master (who need not be a
    /// candidate: a renamed worker); null when the URL is not local (nothing to choose by).
    /// </summary>
    public static IReadOnlyList<int>? Listening(Uri url, IReadOnlyList<int> candidates)
    {
        ArgumentNullException.ThrowIfNull(url);
        ArgumentNullException.ThrowIfNull(candidates);
        return Listeners(url) is { } listeners ? Masters(candidates.Where(listeners.Holders.Contains), listeners.Holders, ParentsByProcess()) : null;
    }

    /// <summary>"PID 123 (nginx) and its 2 workers (124, 125)".</summary>
    private static string Members(int master, IReadOnlyList<int> workers) =>
        $"PID {master} ({Describe(master)}) and its {CountText.Format(workers.Count, "worker")} ({string.Join(", ", workers)})";

    /// <summary>
    /// The descendants of <paramref name="master"/> that run its program and are not among <paramref name="workers"/> (they
    /// hold no listening socket), to be watched for connections on <paramref name="ports"/>; null when there are none.
    /// </summary>
    private static WorkerSearch? CandidatesOf(int master, IReadOnlyList<int> workers, Dictionary<int, int> parents, IReadOnlyList<int> ports)
    {
        if (ports.Count == 0 || Program(master) is not { } program)
        {
            return null;
        }

        List<int> candidates = [.. parents.Keys.Where(pid => pid != master && !workers.Contains(pid) && IsDescendant(pid, master, parents) && Program(pid) == program).Order()];
        return candidates.Count == 0 ? null : new WorkerSearch(candidates, ports);
    }

    /// <summary>
    /// The line said after a run whose watch found workers by their connections (<see cref="WorkerSearch"/>):
    /// "server: PID 500 (node) and its 2 workers (501, 502), found holding connections on :3000 during the run, …".
    /// </summary>
    public static string FoundDuringRun(string role, int master, IReadOnlyList<int> found, IReadOnlyList<int> ports)
    {
        ArgumentNullException.ThrowIfNull(found);
        ArgumentNullException.ThrowIfNull(ports);
        return $"{role}: {Members(master, [.. found.Order()])}, found holding connections on {PortList(ports)} during the run, measured with it from the run's start";
    }

    /// <summary>
    /// The pre-fork server <paramref name="holder"/> (a process holding the listening socket) belongs to: its master, the
    /// topmost of it and its ancestors that hold the socket and run its program (<c>/proc/PID/exe</c>), and the master's
    /// other descendants that do too, its workers, in order. The program must match: under socket activation systemd
    /// holds the service's socket, and is no part of the server.
    /// </summary>
    private static (int Master, List<int> Workers) Group(int holder, HashSet<int> holders, Dictionary<int, int> parents)
    {
        if (Program(holder) is not { } program)
        {
            return (holder, []);
        }

        var master = holder;
        for (var steps = 0; steps < 4096 && parents.TryGetValue(master, out var parent) && holders.Contains(parent) && Program(parent) == program; steps++)
        {
            master = parent;
        }

        return (master, [.. holders.Where(pid => pid != master && IsDescendant(pid, master, parents) && Program(pid) == program).Order()]);
    }

    /// <summary>The masters of <paramref name="processes"/> (each a holder of the socket), once each, in order.</summary>
    private static List<int> Masters(IEnumerable<int> processes, HashSet<int> holders, Dictionary<int, int> parents) =>
        [.. processes.Select(pid => Group(pid, holders, parents).Master).Distinct().Order()];

    /// <summary>The program a process runs (<c>/proc/PID/exe</c>'s target); null when it cannot be read (another user's, exited).</summary>
    private static string? Program(int processId)
    {
        try
        {
            return new FileInfo($"/proc/{processId.ToString(CultureInfo.InvariantCulture)}/exe").LinkTarget;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>"PID 1234 (dotnet Freight.Cli.dll)", for each of <paramref name="processIds"/>.</summary>
    public static string Name(IEnumerable<int> processIds) =>
        string.Join(", ", processIds.Select(pid => $"PID {pid.ToString(CultureInfo.InvariantCulture)} ({Describe(pid)})"));

    /// <summary>
    /// What a process runs: its name (<c>/proc/PID/comm</c>), or for <c>dotnet App.dll</c> the assembly too,
    /// as "dotnet" alone names every .NET app; "?" when it cannot be read.
    /// </summary>
    public static string Describe(int processId)
    {
        try
        {
            var directory = "/proc/" + processId.ToString(CultureInfo.InvariantCulture);
            var name = File.ReadAllText(directory + "/comm").TrimEnd('\n');
            var args = File.ReadAllText(directory + "/cmdline").Split('\0', 3);
            return name == "dotnet" && args.Length > 1 && args[1].EndsWith(".dll", StringComparison.OrdinalIgnoreCase)
                ? "dotnet " + Path.GetFileName(args[1])
                : name;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return "?";
        }
    }

    private sealed record ListenerSet(HashSet<long> Inodes, HashSet<int> Holders);

    /// <summary>The sockets listening where <paramref name="url"/> connects, and the processes this user can see holding them; null when the URL is not local or off Linux.</summary>
    private static ListenerSet? Listeners(Uri url)
    {
        if (!OperatingSystem.IsLinux() || LoopbackOf(url) is not { } loopback)
        {
            return null;
        }

        var inodes = new HashSet<long>();
        foreach (var socket in TcpSockets())
        {
            if (socket.State == Listen && socket.LocalPort == url.Port && Reaches(socket.Local, loopback))
            {
                inodes.Add(socket.Inode);
            }
        }

        return new ListenerSet(inodes, inodes.Count == 0 ? [] : Holders(inodes));
    }

    /// <summary>
    /// The loopback address <paramref name="url"/> names (both families for <c>localhost</c>, null for any), or null
    /// when its host is not this machine's loopback.
    /// </summary>
    private static IPAddress? LoopbackOf(Uri url)
    {
        if (url.IsLoopback && url.HostNameType == UriHostNameType.Dns)
        {
            return IPAddress.None; // localhost: any loopback address
        }

        return IPAddress.TryParse(url.Host.Trim('[', ']'), out var address) && IPAddress.IsLoopback(address) ? address : null;
    }

    /// <summary>
    /// Whether a connection to <paramref name="loopback"/> reaches a socket bound to <paramref name="bound"/>: bound to it,
    /// to any loopback address for localhost, or to the wildcard.
    /// </summary>
    private static bool Reaches(IPAddress? bound, IPAddress loopback) =>
        bound is null
        || bound.Equals(IPAddress.Any) || bound.Equals(IPAddress.IPv6Any)
        || (loopback.Equals(IPAddress.None) ? IPAddress.IsLoopback(bound) : Same(bound, loopback));

    private static bool Same(IPAddress a, IPAddress b) =>
        (a.IsIPv4MappedToIPv6 ? a.MapToIPv4() : a).Equals(b.IsIPv4MappedToIPv6 ? b.MapToIPv4() : b);

    /// <summary>The kernel's hex address: IPv4 one 32-bit word, IPv6 four, each in this machine's byte order (little-endian here).</summary>
    private static IPAddress? ParseAddress(string hex)
    {
        if (hex.Length is not (8 or 32))
        {
            return null;
        }

        var bytes = Convert.FromHexString(hex);
        for (var word = 0; word < bytes.Length && BitConverter.IsLittleEndian; word += 4)
        {
            Array.Reverse(bytes, word, 4);
        }

        return new IPAddress(bytes);
    }

    /// <summary>The processes with a descriptor on one of <paramref name="inodes"/>, among those whose descriptors this user may read.</summary>
    private static HashSet<int> Holders(HashSet<long> inodes)
    {
        var holders = new HashSet<int>();
        foreach (var pid in ProcessIds())
        {
            if (SocketInodes(pid).Exists(inodes.Contains))
            {
                holders.Add(pid);
            }
        }

        return holders;
    }

    /// <summary>The network namespace a process runs in (<c>/proc/PID/ns/net</c>'s link, "net:[4026531833]"); null when it cannot be read.</summary>
    private static string? NetworkNamespace(int processId)
    {
        try
        {
            return new FileInfo($"/proc/{processId.ToString(CultureInfo.InvariantCulture)}/ns/net").LinkTarget;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    private static bool CanReadSockets(int processId)
    {
        try
        {
            _ = Directory.EnumerateFileSystemEntries($"/proc/{processId.ToString(CultureInfo.InvariantCulture)}/fd").FirstOrDefault();
            return true;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return false;
        }
    }

    /// <summary>Each process's parent (<c>/proc/PID/stat</c> field 4, after the name in parentheses).</summary>
    private static Dictionary<int, int> ParentsByProcess()
    {
        var parents = new Dictionary<int, int>();
        foreach (var pid in ProcessIds())
        {
            try
            {
                var stat = File.ReadAllText($"/proc/{pid.ToString(CultureInfo.InvariantCulture)}/stat");
                var fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ', 3);
                if (fields.Length > 1 && int.TryParse(fields[1], NumberStyles.None, CultureInfo.InvariantCulture, out var parent))
                {
                    parents[pid] = parent;
                }
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                // Exited while we looked.
            }
        }

        return parents;
    }

    private static bool IsDescendant(int processId, int ancestor, Dictionary<int, int> parents)
    {
        // Bounded: a parent map read while processes come and go could hold a loop.
        for (var (pid, steps) = (processId, 0); steps < 4096 && parents.TryGetValue(pid, out var parent) && parent > 0; (pid, steps) = (parent, steps + 1))
        {
            if (parent == ancestor)
            {
                return true;
            }
        }

        return false;
    }

    private static IEnumerable<int> ProcessIds()
    {
        foreach (var directory in Directory.EnumerateDirectories("/proc"))
        {
            if (int.TryParse(Path.GetFileName(directory), NumberStyles.None, CultureInfo.InvariantCulture, out var pid))
            {
                yield return pid;
            }
        }
    }
}
