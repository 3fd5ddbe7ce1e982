using System.Diagnostics;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using Freight.Telemetry;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Core.Features;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Freight.Downloads;

/// <summary>
/// The one rule both download paths hold a client to while a file body waits on it, read from its TCP acknowledgements
/// (Linux <c>tcp_info</c>): the client keeps up while it has read the response's minimum data rate's worth since the
/// wait began or since it last kept up, and one that does not for a whole grace period is cut, logged once. Kestrel's
/// own timer is looser on its transport: a client that stopped reading a 64 MiB file was not cut in 20 s, and then took
/// every byte (docs/results/2026-11-28-stalled-readers.md). Acknowledgements come a receive window's step at a time (up
/// to 64 KiB on loopback, about a segment on a network), so a client must read more than one such step per grace period.
/// </summary>
internal sealed class ClientReadWatch
{
    // linux/in.h and linux/tcp.h: getsockopt(IPPROTO_TCP, TCP_INFO) fills struct tcp_info, whose tcpi_bytes_acked (a
    // u64 in the host's byte order, Linux 4.1 and later) is at byte 120 on every architecture.
    private const int IpProtoTcp = 6;
    private const int TcpInfo = 11;
    private const int TcpInfoBytesAckedOffset = 120;
    private const int TcpInfoSize = 232;

    private const string LogCategory = "Freight.Downloads";

    private readonly Socket _socket;
    private readonly MinDataRate _minRate;
    private readonly HttpContext _response;
    private long _readWhenKeptUp;
    private long _keptUpAt;

    private ClientReadWatch(Socket socket, MinDataRate minRate, HttpContext response, long read)
    {
        _socket = socket;
        _minRate = minRate;
        _response = response;
        _readWhenKeptUp = read;
        _keptUpAt = Stopwatch.GetTimestamp();

        // Checked at half the grace, at most every second: a client that falls behind is cut within a check of the
        // grace's end, and the sendfile path lets its waiting flush go before Kestrel's own timer (the grace) would cut it.
        CheckInterval = TimeSpan.FromTicks(Math.Min(TimeSpan.TicksPerSecond, minRate.GracePeriod.Ticks / 2));
    }

    /// <summary>
    /// Starts watching the client of <paramref name="response"/> at the other end of <paramref name="socket"/>; null when
    /// there is no response or minimum rate to hold it to, or the socket cannot tell.
    /// </summary>
    public static ClientReadWatch? TryStart(Socket? socket, HttpContext? response)
    {
        if (socket is null || response is null || MinRateOf(response) is not { } minRate || !OperatingSystem.IsLinux())
        {
            return null;
        }

        var read = BytesAcknowledged(socket);
        return read < 0 ? null : new ClientReadWatch(socket, minRate, response, read);
    }

    /// <summary>
    /// The response's minimum data rate: its own (HTTP/1.x; null when the app turned it off), or on an HTTP/2 stream, which
    /// has no such feature, the server's (Kestrel applies it to the connection's writes, so a stream that its client
    /// stopped taking, its flow-control window shut, was never cut).
    /// </summary>
    private static MinDataRate? MinRateOf(HttpContext response) =>
        response.Features.Get<IHttpMinResponseDataRateFeature>() is { } feature
            ? feature.MinDataRate
            : response.RequestServices?.GetService<IOptions<KestrelServerOptions>>()?.Value.Limits.MinResponseDataRate;

    /// <summary>How often to check the client while it holds the response up: half the grace, at most a second.</summary>
    public TimeSpan CheckInterval { get; }

    /// <summary>
    /// Waits for <paramref name="waiting"/>, which waits on the client, checking it every <see cref="CheckInterval"/>: a
    /// client that has fallen behind is cut (the response is aborted, which ends <paramref name="waiting"/>); otherwise
    /// <paramref name="whileReading"/> runs.
    /// </summary>
    public async Task WaitAsync(Task waiting, Action? whileReading)
    {
        using var stop = new CancellationTokenSource();
        while (await Task.WhenAny(waiting, Task.Delay(CheckInterval, stop.Token)) != waiting)
        {
            if (!KeepsUpOrIsCut())
            {
                break;
            }

            whileReading?.Invoke();
        }

        await stop.CancelAsync();
        await waiting;
    }

    /// <summary>
    /// Checks the client while it holds the response up: true while it keeps up or its grace lasts; false once it has
    /// fallen behind, when it is cut (logged, and the response aborted).
    /// </summary>
    public bool KeepsUpOrIsCut()
    {
        if (HasKeptUp() || Stopwatch.GetElapsedTime(_keptUpAt) < _minRate.GracePeriod)
        {
            return true;
        }

        Cut();
        return false;
    }

    /// <summary>Starts the client's grace afresh: nothing waits on it now (the server is the one that is slow, or idle).</summary>
    public void Restart()
    {
        var read = BytesAcknowledged(_socket);
        if (read >= 0)
        {
            _readWhenKeptUp = read;
        }

        _keptUpAt = Stopwatch.GetTimestamp();
    }

    /// <summary>Whether the client has read the rate's worth since it last kept up (or the watch began); if so, that is now.</summary>
    private bool HasKeptUp()
    {
        var read = BytesAcknowledged(_socket);
        if (read <= _readWhenKeptUp || read - _readWhenKeptUp < _minRate.BytesPerSecond * Stopwatch.GetElapsedTime(_keptUpAt).TotalSeconds)
        {
            return false;
        }

        _readWhenKeptUp = read;
        _keptUpAt = Stopwatch.GetTimestamp();
        return true;
    }

    private void Cut()
    {
        FreightTelemetry.CutDownload(_response.Connection.LocalPort);
        if (_response.RequestServices?.GetService<ILoggerFactory>() is { } loggers)
        {
            DownloadLog.SlowReaderCut(loggers.CreateLogger(LogCategory), _response.TraceIdentifier, _minRate.BytesPerSecond, _minRate.GracePeriod.TotalSeconds);
        }

        _response.Abort();
    }

    /// <summary>The bytes the client's TCP has acknowledged on this connection so far; -1 when the socket cannot tell.</summary>
    private static long BytesAcknowledged(Socket socket)
    {
        Span<byte> info = stackalloc byte[TcpInfoSize];
        try
        {
            var length = socket.GetRawSocketOption(IpProtoTcp, TcpInfo, info);
            return length >= TcpInfoBytesAckedOffset + sizeof(long)
                ? (long)MemoryMarshal.Read<ulong>(info[TcpInfoBytesAckedOffset..])
                : -1;
        }
        catch (Exception error) when (error is SocketException or ObjectDisposedException or PlatformNotSupportedException)
        {
            return -1;
        }
    }
}
