namespace Freight.Bench.Load.Blame;

/// <summary>
/// Processes that may turn out to be a server's workers during the run (<see cref="ProcessWatch"/>): its master's
/// descendants that run its program but hold none of its listening sockets, and the ports whose connections make one a
/// worker (<see cref="ServerListener.HoldingConnections"/>). A Node cluster's primary accepts and hands each connection
/// to a worker, which holds it, never the listening socket.
/// </summary>
public sealed record WorkerSearch(IReadOnlyList<int> Candidates, IReadOnlyList<int> Ports);
