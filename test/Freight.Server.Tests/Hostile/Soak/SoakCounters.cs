using System.Collections.Concurrent;

namespace Freight.Server.Tests.Hostile.Soak;

/// <summary>What the soak's clients did: requests and bytes, answers by operation and status, and every outcome the model did not allow.</summary>
internal sealed class SoakCounters
{
    // Enough to diagnose; the count says how many there were.
    private const int KeptFaults = 50;

    private readonly ConcurrentDictionary<(string Operation, int Status), long> _answers = new();
    private readonly ConcurrentQueue<string> _faults = new();
    private long _requests;
    private long _bytesSent;
    private long _bytesReceived;
    private long _faultCount;

    public long Requests => Interlocked.Read(ref _requests);

    public long BytesSent => Interlocked.Read(ref _bytesSent);

    public long BytesReceived => Interlocked.Read(ref _bytesReceived);

    public long FaultCount => Interlocked.Read(ref _faultCount);

    public IReadOnlyCollection<string> Faults => _faults;

    public IReadOnlyDictionary<(string Operation, int Status), long> Answers => _answers;

    public void Sent(long bodyBytes)
    {
        Interlocked.Increment(ref _requests);
        Interlocked.Add(ref _bytesSent, bodyBytes);
    }

    public void Answered(string operation, int status, long bodyBytes)
    {
        _answers.AddOrUpdate((operation, status), 1, static (_, count) => count + 1);
        Interlocked.Add(ref _bytesReceived, bodyBytes);
    }

    /// <summary>An outcome the model does not allow: an unexpected status, wrong bytes or headers, a transport error.</summary>
    public void Fault(string what)
    {
        if (Interlocked.Increment(ref _faultCount) <= KeptFaults)
        {
            _faults.Enqueue(what);
        }
    }
}
