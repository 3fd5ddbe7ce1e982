using System.IO.Pipelines;
using Microsoft.AspNetCore.Connections.Features;
using Microsoft.AspNetCore.Http;

namespace Freight.Downloads;

/// <summary>
/// The flushes of one file body on the copying paths (Kestrel's transport: cleartext without sendfile, HTTPS, HTTP/2).
/// While one waits on the client, the client is held to the minimum data rate as on the sendfile path
/// (<see cref="ClientReadWatch"/>): on Kestrel's transport a client that stopped reading held its connection and file
/// open for as long as it liked. One check a second for the whole body, started by its first flush that waits, rather
/// than a timer per flush: a 1 GiB body waits on its client about once per MiB, and a timer and getsockopt for each of
/// those cost the server 2.5–4 % more CPU per GiB; one check a second showed no cost (0.97×, 12 rounds with curl:
/// docs/results/2026-11-28-stalled-readers.md).
/// </summary>
internal sealed class WatchedFlushes(PipeWriter writer, HttpContext? response) : IDisposable
{
    private CancellationTokenSource? _stopWatching;
    private bool _cannotWatch;
    private int _waiting;

    /// <summary>For tests: the watch of the client, completed when none was started or it has ended.</summary>
    internal Task Watch { get; private set; } = Task.CompletedTask;

    /// <summary>For tests: the token that ends the watch (read it before <see cref="Dispose"/>).</summary>
    internal CancellationToken WatchStop => _stopWatching?.Token ?? CancellationToken.None;

    /// <summary>Flushes the body's writer; a flush that waits is watched.</summary>
    public ValueTask<FlushResult> FlushAsync(CancellationToken cancellationToken)
    {
        var flush = writer.FlushAsync(cancellationToken);
        return flush.IsCompleted || !IsWatching() ? flush : WhileWaitingAsync(flush);
    }

    public void Dispose()
    {
        _stopWatching?.Cancel();
        _stopWatching?.Dispose();
    }

    private async ValueTask<FlushResult> WhileWaitingAsync(ValueTask<FlushResult> flush)
    {
        Volatile.Write(ref _waiting, 1);
        try
        {
            // A cut aborts the response, and Kestrel then completes its writer: the flush ends.
            return await flush;
        }
        finally
        {
            Volatile.Write(ref _waiting, 0);
        }
    }

    /// <summary>Whether the client is watched, starting the watch the first time a flush waits.</summary>
    private bool IsWatching()
    {
        if (_stopWatching is not null || _cannotWatch)
        {
            return !_cannotWatch;
        }

        if (ClientReadWatch.TryStart(response?.Features.Get<IConnectionSocketFeature>()?.Socket, response) is not { } client)
        {
            _cannotWatch = true;
            return false;
        }

        _stopWatching = new CancellationTokenSource();
        Watch = WatchAsync(client, _stopWatching.Token);
        return true;
    }

    private async Task WatchAsync(ClientReadWatch client, CancellationToken stop)
    {
        while (true)
        {
            // Most watches end by the body's end cancelling them, so the wait must not throw: a thrown cancellation cost
            // a user's copying path one exception for about every other 300 KB response (docs/results/2026-11-28-watch-exceptions.md).
            await Task.Delay(client.CheckInterval, stop).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
            if (stop.IsCancellationRequested)
            {
                return;
            }

            if (Volatile.Read(ref _waiting) == 0)
            {
                client.Restart();
            }
            else if (!client.KeepsUpOrIsCut())
            {
                return;
            }
        }
    }
}
