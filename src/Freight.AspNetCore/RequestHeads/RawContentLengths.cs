using System.Collections.Concurrent;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Core;

namespace Freight.AspNetCore.RequestHeads;

/// <summary>
/// The <c>Content-Length</c> values of HTTP/1.x requests as sent, per connection: a Kestrel connection middleware
/// (<see cref="Scan"/>) shows each connection's request heads to a <see cref="ContentLengthScanner"/>, and
/// <see cref="ContentLengthMiddleware"/> asks for the current request's. HTTP/2 is not scanned.
/// </summary>
internal sealed class RawContentLengths
{
    private readonly ConcurrentDictionary<string, ContentLengthScanner> _connections = new(StringComparer.Ordinal);

    /// <summary>The scanner of the connection <paramref name="connectionId"/>, when it is an HTTP/1.x connection being scanned.</summary>
    public ContentLengthScanner? For(string connectionId) => _connections.TryGetValue(connectionId, out var scanner) ? scanner : null;

    /// <summary>
    /// The connection middleware of every endpoint (<see cref="KestrelServerOptions.ConfigureEndpointDefaults"/>), so
    /// before the endpoint's own: its TLS, if any, is taken care of by <see cref="ScanningConnection"/>. An HTTP/2-only
    /// endpoint (h2c) is left alone.
    /// </summary>
    public Func<ConnectionDelegate, ConnectionDelegate> ScanOn(ListenOptions listen) =>
        // Called when Kestrel binds the endpoint, after the app's configuration of it set its protocols.
        next => listen.Protocols == HttpProtocols.Http2 ? next : Scan(next);

    /// <summary>The connection middleware: each connection's request heads shown to a scanner of its own while it lasts.</summary>
    public ConnectionDelegate Scan(ConnectionDelegate next) => async connection =>
    {
        var transport = connection.Transport;
        try
        {
            await next(new ScanningConnection(connection, this));
        }
        finally
        {
            _connections.TryRemove(connection.ConnectionId, out _);
            connection.Transport = transport;
        }
    };

    /// <summary>A new scanner for the connection <paramref name="connectionId"/>, in place of any it had.</summary>
    public ContentLengthScanner Start(string connectionId) => _connections[connectionId] = new ContentLengthScanner();

    /// <summary>The connection <paramref name="connectionId"/> is not scanned (HTTP/2 negotiated on TLS).</summary>
    public void Forget(string connectionId) => _connections.TryRemove(connectionId, out _);
}
