using System.IO.Pipelines;
using System.Net;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core.Features;

namespace Freight.AspNetCore.RequestHeads;

/// <summary>
/// A connection as the middleware after <see cref="RawContentLengths.Scan"/> see it: everything is the Kestrel
/// connection's, except that the transport a TLS middleware sets (its decrypted bytes) is scanned in place of the
/// ciphertext below it. Needed because Kestrel's endpoint defaults add their middleware before an endpoint's own
/// <c>UseHttps</c>: the scan is outermost, and only learns of TLS when the TLS middleware swaps the transport.
/// </summary>
internal sealed class ScanningConnection : ConnectionContext
{
    private readonly ConnectionContext _connection;
    private readonly RawContentLengths _lengths;
    private ScanningPipeReader? _received;
    private bool _settled;

    public ScanningConnection(ConnectionContext connection, RawContentLengths lengths)
    {
        _connection = connection;
        _lengths = lengths;
        // Plaintext until a TLS middleware says otherwise: the scan starts at the first byte.
        connection.Transport = Scanned(connection.Transport, out _received);
    }

    public override IDuplexPipe Transport
    {
        get => _connection.Transport;
        set
        {
            if (!_settled && Features.Get<ITlsConnectionFeature>() is not null)
            {
                // The TLS middleware's plaintext, set once its handshake is done (ALPN known): its bytes are the
                // request heads; what was scanned below it was the handshake.
                _settled = true;
                _received?.StopScanning();
                _received = null;
                if (Features.Get<ITlsApplicationProtocolFeature>()?.ApplicationProtocol.Span.SequenceEqual("h2"u8) == true)
                {
                    // HTTP/2: DATA frames delimit the body, not the length, and HPACK (Huffman-coded) is not for this scan.
                    _lengths.Forget(ConnectionId);
                }
                else
                {
                    value = Scanned(value, out _);
                }
            }

            _connection.Transport = value;
        }
    }

    public override string ConnectionId
    {
        get => _connection.ConnectionId;
        set => _connection.ConnectionId = value;
    }

    public override IFeatureCollection Features => _connection.Features;

    public override IDictionary<object, object?> Items
    {
        get => _connection.Items;
        set => _connection.Items = value;
    }

    public override CancellationToken ConnectionClosed
    {
        get => _connection.ConnectionClosed;
        set => _connection.ConnectionClosed = value;
    }

    public override EndPoint? LocalEndPoint
    {
        get => _connection.LocalEndPoint;
        set => _connection.LocalEndPoint = value;
    }

    public override EndPoint? RemoteEndPoint
    {
        get => _connection.RemoteEndPoint;
        set => _connection.RemoteEndPoint = value;
    }

    public override void Abort() => _connection.Abort();

    public override void Abort(ConnectionAbortedException abortReason) => _connection.Abort(abortReason);

    public override ValueTask DisposeAsync() => _connection.DisposeAsync();

    /// <summary><paramref name="transport"/> with its input shown to a new scanner, which the connection's requests ask for.</summary>
    private DuplexPipe Scanned(IDuplexPipe transport, out ScanningPipeReader reader)
    {
        reader = new ScanningPipeReader(transport.Input, _lengths.Start(ConnectionId));
        return new DuplexPipe(reader, transport.Output);
    }

    private sealed class DuplexPipe(PipeReader input, PipeWriter output) : IDuplexPipe
    {
        public PipeReader Input { get; } = input;

        public PipeWriter Output { get; } = output;
    }
}
