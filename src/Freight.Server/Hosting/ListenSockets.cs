using System.Net;
using System.Net.Sockets;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.Options;

namespace Freight.Server.Hosting;

/// <summary>
/// Makes Kestrel's listening sockets (<see cref="SocketTransportOptions.CreateBoundListenSocket"/>) as Kestrel does,
/// but an address the machine will not listen on (in use, a port that needs privileges, an IP that is not one of its
/// own) is refused as an invalid <c>Freight:Urls</c> is: one line naming the address and what to do, exit 2, not
/// Kestrel's IOException under the host's "Hosting failed to start". Kestrel closes the sockets it bound before.
/// </summary>
internal sealed class ListenSockets(IReadOnlyList<(string Url, ListenAddress Address)> addresses)
{
    public Socket Bind(EndPoint endpoint)
    {
        try
        {
            return SocketTransportOptions.CreateDefaultBoundListenSocket(endpoint);
        }
        catch (SocketException refused) when (endpoint is IPEndPoint address && Problem(address, refused.SocketErrorCode) is { } problem)
        {
            throw new OptionsValidationException(FreightServerOptions.SectionName, typeof(FreightServerOptions), [$"Freight:Urls: {problem}"]);
        }
    }

    private string? Problem(IPEndPoint endpoint, SocketError error)
    {
        var url = UrlOf(endpoint);
        return error switch
        {
            SocketError.AddressAlreadyInUse when Overlapping(endpoint) > 1 =>
                $"{url} takes a port another address of --urls takes too: give each port once.",
            SocketError.AddressAlreadyInUse =>
                $"{url} is in use by another process: stop it, or choose another port with --urls (port 0 picks a free one).",
            // EACCES: a port below net.ipv4.ip_unprivileged_port_start (1024 by default) without CAP_NET_BIND_SERVICE.
            SocketError.AccessDenied =>
                $"{url} needs privileges to listen on (ports below 1024 do): grant the server CAP_NET_BIND_SERVICE, or choose a port from 1024 up with --urls.",
            // EADDRNOTAVAIL: no interface of this machine has the IP.
            SocketError.AddressNotAvailable =>
                $"{url}: {endpoint.Address} is not an address of this machine. Choose one of its own with --urls (127.0.0.1: this machine only; 0.0.0.0: every interface).",
            _ => null,
        };
    }

    /// <summary>The address as configured (its scheme and host as typed), for the one Kestrel was binding.</summary>
    private string UrlOf(IPEndPoint endpoint)
    {
        foreach (var (url, address) in addresses)
        {
            if (address.Address.Equals(endpoint.Address) && (address.Port == endpoint.Port || address.Port == 0))
            {
                return url;
            }
        }

        return endpoint.ToString();
    }

    /// <summary>How many configured addresses take <paramref name="endpoint"/>'s port on its IP (the same IP, or either one any).</summary>
    private int Overlapping(IPEndPoint endpoint)
    {
        var count = 0;
        foreach (var (_, address) in addresses)
        {
            if (address.Port == endpoint.Port && (address.Address.Equals(endpoint.Address) || IsAny(address.Address) || IsAny(endpoint.Address)))
            {
                count++;
            }
        }

        return count;
    }

    private static bool IsAny(IPAddress address) => address.Equals(IPAddress.Any) || address.Equals(IPAddress.IPv6Any);
}
