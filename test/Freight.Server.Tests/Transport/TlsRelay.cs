using System.Buffers.Binary;
using System.Net;
using System.Net.Sockets;

namespace Freight.Server.Tests.Transport;

/// <summary>
/// A raw TCP relay between a client and the server's TLS port that reads the TLS record headers going to the
/// client (RFC 8446 §5.1: type, legacy version, 16-bit length): what the server's TLS layer writes, untouched.
/// </summary>
internal sealed class TlsRelay : IAsyncDisposable
{
    /// <summary>TLS record content type application_data (RFC 8446 §5.1).</summary>
    public const byte ApplicationData = 23;

    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly IPEndPoint _server;
    private readonly List<Task> _pumps = [];
    private readonly List<Socket> _sockets = [];
    private readonly List<(byte Type, int Length)> _records = [];
    private readonly CancellationTokenSource _stop = new();
    private Task? _accepting;

    public TlsRelay(Uri server)
    {
        _server = new IPEndPoint(IPAddress.Parse(server.Host), server.Port);
        _listener.Start();
        _accepting = AcceptAsync();
    }

    /// <summary>The relay's address: <c>https://localhost:PORT/</c> (the certificate names localhost).</summary>
    public Uri Address => new($"https://localhost:{((IPEndPoint)_listener.LocalEndpoint).Port}/");

    /// <summary>Every record the server sent so far, in order (type, length of its fragment).</summary>
    public IReadOnlyList<(byte Type, int Length)> ServerRecords
    {
        get
        {
            lock (_records)
            {
                return [.. _records];
            }
        }
    }

    private async Task AcceptAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            Socket client;
            try
            {
                client = await _listener.AcceptSocketAsync(_stop.Token);
            }
            catch (OperationCanceledException)
            {
                return;
            }

            var server = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            await server.ConnectAsync(_server);
            lock (_pumps)
            {
                _sockets.Add(client);
                _sockets.Add(server);
                _pumps.Add(PumpAsync(client, server, parse: false));
                _pumps.Add(PumpAsync(server, client, parse: true));
            }
        }
    }

    private async Task PumpAsync(Socket from, Socket to, bool parse)
    {
        var buffer = new byte[256 * 1024];
        var header = new byte[5];
        var headerFilled = 0;
        var bodyLeft = 0;
        try
        {
            int read;
            while ((read = await from.ReceiveAsync(buffer, _stop.Token)) > 0)
            {
                await to.SendAsync(buffer.AsMemory(0, read), _stop.Token);
                for (var i = 0; parse && i < read;)
                {
                    if (bodyLeft > 0)
                    {
                        var skip = Math.Min(bodyLeft, read - i);
                        bodyLeft -= skip;
                        i += skip;
                        continue;
                    }

                    header[headerFilled++] = buffer[i++];
                    if (headerFilled == header.Length)
                    {
                        bodyLeft = BinaryPrimitives.ReadUInt16BigEndian(header.AsSpan(3));
                        headerFilled = 0;
                        lock (_records)
                        {
                            _records.Add((header[0], bodyLeft));
                        }
                    }
                }
            }

            to.Shutdown(SocketShutdown.Send);
        }
        catch (Exception ended) when (ended is SocketException or OperationCanceledException or ObjectDisposedException)
        {
            // Either side went away: the relay of this connection ends with it.
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync();
        _listener.Stop();
        await (_accepting ?? Task.CompletedTask);
        Task[] pumps;
        lock (_pumps)
        {
            pumps = [.. _pumps];
        }

        await Task.WhenAll(pumps);
        foreach (var socket in _sockets)
        {
            socket.Dispose();
        }

        _stop.Dispose();
    }
}
