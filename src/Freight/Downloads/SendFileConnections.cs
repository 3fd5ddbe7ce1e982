using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Connections.Features;
using Microsoft.AspNetCore.Http.Features;

namespace Freight.Downloads;

/// <summary>
/// Connection middleware (<c>ListenOptions.Use</c>) for cleartext listeners: each connection's output is sent by
/// a <see cref="SendFileConnection"/>, whose <see cref="ISendFileFeature"/> lets <see cref="FileResponder"/>
/// send large file bodies with sendfile(2). Elsewhere than Linux x86-64/arm64, or without a socket
/// (another transport), the connection passes through unchanged. Not for TLS listeners: sendfile would
/// bypass the encryption (kTLS is out of .NET's reach). Put on one anyway, it never sends plaintext: under the TLS
/// middleware the connection passes through, and outside it no HTTPS response is sent by sendfile.
/// </summary>
public static class SendFileConnections
{
    /// <summary>The middleware, for <c>ListenOptions.Use</c>.</summary>
    public static ConnectionDelegate Use(ConnectionDelegate next)
    {
        ArgumentNullException.ThrowIfNull(next);
        return connection => RunAsync(connection, next);
    }

    private static async Task RunAsync(ConnectionContext connection, ConnectionDelegate next)
    {
        // Under a TLS middleware (Use after UseHttps) the transport carries plaintext: sending it on the socket would
        // bypass the encryption, so such a connection passes through. Outside one, file bodies are refused per request
        // (FileResponder: IsHttps).
        if (!LinuxSendFile.IsSupported
            || connection.Features.Get<ITlsConnectionFeature>() is not null
            || connection.Features.Get<IConnectionSocketFeature>()?.Socket is not { } socket)
        {
            await next(connection);
            return;
        }

        var sending = new SendFileConnection(connection, socket, connection.Features.Get<IMemoryPoolFeature>()?.MemoryPool);
        var transport = connection.Transport;
        connection.Transport = sending;
        connection.Features.Set<ISendFileFeature>(sending);
        var loop = sending.RunAsync();
        try
        {
            await next(connection);
        }
        finally
        {
            // Whatever the HTTP layer left in the pipe leaves before Kestrel shuts the socket down.
            sending.CompleteOutput();
            await loop;
            connection.Features.Set<ISendFileFeature>(null);
            connection.Transport = transport;
        }
    }
}
