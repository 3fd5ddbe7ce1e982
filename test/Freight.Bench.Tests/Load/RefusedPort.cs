using System.Net;
using System.Net.Sockets;

namespace Freight.Bench.Tests.Load;

/// <summary>A 127.0.0.1 port nobody listens on: bound to learn a free one, then closed, so connecting is refused.</summary>
internal static class RefusedPort
{
    public static Uri Url(string path = "/")
    {
        using var probe = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        probe.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        return new Uri($"http://127.0.0.1:{((IPEndPoint)probe.LocalEndPoint!).Port}{path}");
    }
}
