using System.Net;
using System.Net.Sockets;

namespace Freight.Server.Tests.Infrastructure;

/// <summary>Clients that look like different machines to the server: each connection leaves from a loopback address of its own (127.0.0.2, …).</summary>
internal static class ClientAddress
{
    /// <summary>An HttpClient whose connections leave from <paramref name="from"/>.</summary>
    public static HttpClient ClientFrom(IPAddress from, TimeSpan timeout) => new(new SocketsHttpHandler
    {
        ConnectCallback = async (context, cancellationToken) =>
        {
            var socket = new Socket(from.AddressFamily, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
            try
            {
                socket.Bind(new IPEndPoint(from, 0));
                await socket.ConnectAsync(context.DnsEndPoint, cancellationToken);
                return new NetworkStream(socket, ownsSocket: true);
            }
            catch
            {
                socket.Dispose();
                throw;
            }
        },
    })
    {
        Timeout = timeout,
    };
}
