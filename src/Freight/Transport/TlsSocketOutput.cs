using System.IO.Pipelines;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Connections.Features;

namespace Freight.Transport;

/// <summary>
/// Connection middleware under Kestrel's TLS middleware (<c>ListenOptions.Use</c> before <c>UseHttps</c>): the
/// TLS records SslStream writes leave on the connection's socket from the thread that encrypted them
/// (<see cref="TlsRecordSender"/>). Kestrel's own path copies each record into the socket transport's output
/// pipe, and the transport's send loop sends it from another thread: a pipe flush and a thread hop per record,
/// which nginx's SSL_write-then-write does not pay (docs/results/2026-11-25-tls-cost.md). The input stays
/// Kestrel's: its receive loop owns the socket's reads. Without a socket (another transport) the connection
/// passes through unchanged.
/// </summary>
internal static class TlsSocketOutput
{
    /// <summary>The middleware, for <c>ListenOptions.Use</c> ahead of <c>UseHttps</c>.</summary>
    public static ConnectionDelegate Use(ConnectionDelegate next)
    {
        ArgumentNullException.ThrowIfNull(next);
        return connection => RunAsync(connection, next);
    }

    private static async Task RunAsync(ConnectionContext connection, ConnectionDelegate next)
    {
        if (connection.Features.Get<IConnectionSocketFeature>()?.Socket is not { } socket)
        {
            await next(connection);
            return;
        }

        var transport = connection.Transport;
        var sender = new TlsRecordSender(socket, connection);
        connection.Transport = new SocketOutputPipe(transport.Input, sender);
        connection.Features.Set(sender);
        try
        {
            await next(connection);
        }
        finally
        {
            // Kestrel's TLS middleware has flushed and disposed its SslStream: nothing writes to the sender any more.
            // The transport's own output, never written, is completed by Kestrel as usual and shuts the socket down.
            connection.Features.Set<TlsRecordSender>(null);
            connection.Transport = transport;
            await sender.SendHeldAsync();
            await sender.CompleteAsync();
        }
    }

    /// <summary>
    /// The middleware after <c>UseHttps</c>, which runs once the handshake has succeeded: from then on the sender may
    /// hold full records for the next ones (during the handshake a held flight would wait for a reply that needs it).
    /// </summary>
    public static ConnectionDelegate AfterHandshake(ConnectionDelegate next)
    {
        ArgumentNullException.ThrowIfNull(next);
        return connection =>
        {
            connection.Features.Get<TlsRecordSender>()?.HandshakeDone();
            return next(connection);
        };
    }

    /// <summary>Kestrel's receive pipe with Freight's sender as the output.</summary>
    private sealed class SocketOutputPipe(PipeReader input, PipeWriter output) : IDuplexPipe
    {
        public PipeReader Input { get; } = input;

        public PipeWriter Output { get; } = output;
    }
}
