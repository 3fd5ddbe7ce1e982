using System.Collections.Concurrent;
using System.IO.Pipelines;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Core.Features;

namespace Freight.Server.RequestHeads;

/// <summary>
/// The <c>Content-Length</c> values of HTTP/1.1 requests as sent, per connection: a Kestrel connection middleware
/// (<see cref="Scan"/>) shows each connection's request heads to a <see cref="ContentLengthScanner"/>, and
/// <see cref="ContentLengthMiddleware"/> asks for the current request's. HTTP/2 (HPACK) is not scanned.
/// </summary>
internal sealed class RawContentLengths
{
    private readonly ConcurrentDictionary<string, ContentLengthScanner> _connections = new(StringComparer.Ordinal);

    /// <summary>The scanner of the connection <paramref name="connectionId"/>, when it is an HTTP/1.1 connection being scanned.</summary>
    public ContentLengthScanner? For(string connectionId) => _connections.TryGetValue(connectionId, out var scanner) ? scanner : null;

    /// <summary>The connection middleware: after TLS (so it sees plain bytes), before Kestrel's HTTP layer.</summary>
    public ConnectionDelegate Scan(ConnectionDelegate next) => async connection =>
    {
        if (connection.Features.Get<ITlsApplicationProtocolFeature>()?.ApplicationProtocol.Span.SequenceEqual("h2"u8) == true)
        {
            await next(connection);
            return;
        }

        var scanner = new ContentLengthScanner();
        var transport = connection.Transport;
        connection.Transport = new DuplexPipe(new ScanningPipeReader(transport.Input, scanner), transport.Output);
        _connections[connection.ConnectionId] = scanner;
        try
        {
            await next(connection);
        }
        finally
        {
            _connections.TryRemove(connection.ConnectionId, out _);
            connection.Transport = transport;
        }
    };

    private sealed class DuplexPipe(PipeReader input, PipeWriter output) : IDuplexPipe
    {
        public PipeReader Input { get; } = input;

        public PipeWriter Output { get; } = output;
    }
}
