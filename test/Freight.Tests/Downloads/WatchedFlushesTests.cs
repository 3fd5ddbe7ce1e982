using System.Buffers;
using System.Collections.Concurrent;
using System.IO.Pipelines;
using System.Net;
using System.Net.Sockets;
using System.Runtime.ExceptionServices;
using Freight.Downloads;
using Microsoft.AspNetCore.Connections.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Core.Features;

namespace Freight.Tests.Downloads;

/// <summary>
/// The copying paths' watch of a client that holds a body up (<see cref="WatchedFlushes"/>), on a real loopback
/// connection: a flush that waits starts it, and the body's end stops it without a thrown exception. It used to end in a
/// caught cancellation, one for about every other 300 KB files-API GET in a user's app.
/// </summary>
public sealed class WatchedFlushesTests
{
    [Fact]
    public async Task TheBodysEnd_StopsTheWatchWithoutThrowing()
    {
        if (!OperatingSystem.IsLinux())
        {
            return; // the watch reads Linux's tcp_info; elsewhere there is none to stop
        }

        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        using var client = new TcpClient();
        await client.ConnectAsync((IPEndPoint)listener.LocalEndpoint);
        using var server = await listener.AcceptSocketAsync();

        var response = new DefaultHttpContext();
        response.Features.Set<IConnectionSocketFeature>(new SocketFeature(server));
        response.Features.Set<IHttpMinResponseDataRateFeature>(new MinRateFeature(new MinDataRate(240, TimeSpan.FromSeconds(5))));

        // Nothing reads the pipe, so its first flush waits, as on a client that has not taken the body yet.
        var pipe = new Pipe(new PipeOptions(pauseWriterThreshold: 1, resumeWriterThreshold: 1, useSynchronizationContext: false));
        var flushes = new WatchedFlushes(pipe.Writer, response);
        pipe.Writer.Write("body"u8);
        var flush = flushes.FlushAsync(CancellationToken.None);
        Assert.False(flush.IsCompleted);
        Assert.False(flushes.Watch.IsCompleted);

        var stop = flushes.WatchStop;
        var thrown = new ConcurrentQueue<Exception>();
        void Record(object? sender, FirstChanceExceptionEventArgs args)
        {
            if (args.Exception is OperationCanceledException canceled && canceled.CancellationToken == stop)
            {
                thrown.Enqueue(args.Exception);
            }
        }

        AppDomain.CurrentDomain.FirstChanceException += Record;
        try
        {
            flushes.Dispose();
            await flushes.Watch.WaitAsync(TimeSpan.FromSeconds(10));
        }
        finally
        {
            AppDomain.CurrentDomain.FirstChanceException -= Record;
        }

        Assert.True(flushes.Watch.IsCompletedSuccessfully);
        Assert.Empty(thrown);

        // The body itself is unaffected: once read, the flush completes.
        var read = await pipe.Reader.ReadAsync();
        Assert.Equal("body"u8.ToArray(), read.Buffer.ToArray());
        pipe.Reader.AdvanceTo(read.Buffer.End);
        await flush;
    }

    private sealed class SocketFeature(Socket socket) : IConnectionSocketFeature
    {
        public Socket Socket { get; } = socket;
    }

    private sealed class MinRateFeature(MinDataRate rate) : IHttpMinResponseDataRateFeature
    {
        public MinDataRate? MinDataRate { get; set; } = rate;
    }
}
