using System.Diagnostics;

namespace Freight.Bench.Peers;

/// <summary>
/// An exclusive lock across processes on one install (a file held open with FileShare.None, which .NET takes as an
/// advisory flock on Unix): two benches or test runs installing into one place at once would otherwise undo each
/// other's work. Released on dispose, and by the system when the holder dies.
/// </summary>
public sealed class InstallLock : IAsyncDisposable
{
    /// <summary>How often a waiter tries again: an install takes seconds, so a quarter second costs nothing.</summary>
    private static readonly TimeSpan RetryInterval = TimeSpan.FromMilliseconds(250);

    private readonly FileStream _file;

    private InstallLock(FileStream file) => _file = file;

    /// <summary>Takes the lock on <paramref name="path"/> (created when missing), waiting while another process holds it.</summary>
    /// <exception cref="InvalidOperationException">Another process still held it after <paramref name="patience"/>.</exception>
    public static async Task<InstallLock> AcquireAsync(string path, TimeSpan patience, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        var deadline = Stopwatch.GetTimestamp() + (long)(patience.TotalSeconds * Stopwatch.Frequency);
        while (true)
        {
            try
            {
                return new InstallLock(new FileStream(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None));
            }
            catch (IOException e)
            {
                if (Stopwatch.GetTimestamp() >= deadline)
                {
                    throw new InvalidOperationException($"{path} is still locked by another install after {patience.TotalSeconds:0} s.", e);
                }

                // Another process is installing: wait for it.
                await Task.Delay(RetryInterval, cancellationToken);
            }
        }
    }

    public ValueTask DisposeAsync() => _file.DisposeAsync();
}
