namespace Freight.Server.Lab;

/// <summary>
/// What every <c>/lab/threads/*</c> action answers, as study 3's did: the process's thread count (-1 where the
/// platform has none), the thread pool's, and the delay waited.
/// </summary>
public sealed record LabThreadsResponse(int ProcessThreads, int ThreadPoolThreads, int DelayMs);
