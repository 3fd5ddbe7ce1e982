using System.Net;
using System.Net.Sockets;
using System.Text;

namespace Freight.Bench.Tests.Load;

/// <summary>
/// A raw socket server on 127.0.0.1:0 for what Kestrel never does: it answers every request head (up to
/// CRLFCRLF) with canned bytes, the given responses in turn across all connections, and can close each
/// connection after one response (an idle close without notice, or the end of a body read to the close) or reset it.
/// </summary>
internal sealed class RawResponseServer : IAsyncDisposable
{
    private readonly TcpListener _listener;
    private readonly byte[][] _responses;
    private readonly bool _closeAfterResponse;
    private readonly bool _resetAfterResponse;
    private readonly Task _accepting;
    private int _answered;

    private RawResponseServer(byte[][] responses, bool closeAfterResponse, bool resetAfterResponse = false)
    {
        _responses = responses;
        _closeAfterResponse = closeAfterResponse;
        _resetAfterResponse = resetAfterResponse;
        _listener = new TcpListener(IPAddress.Loopback, 0);
        _listener.Start();
        _accepting = AcceptAsync();
    }

    public Uri Url => new($"http://127.0.0.1:{((IPEndPoint)_listener.LocalEndpoint).Port}/raw");

    public static RawResponseServer Start(string response, bool closeAfterResponse) =>
        new([Encoding.ASCII.GetBytes(response)], closeAfterResponse);

    /// <summary>Sends <paramref name="response"/>, then resets the connection (RST, not FIN: a crashed or killed server).</summary>
    public static RawResponseServer StartResetting(string response) =>
        new([Encoding.ASCII.GetBytes(response)], closeAfterResponse: false, resetAfterResponse: true);

    /// <summary>Answers request n (0-based, over all connections) with <paramref name="responses"/>[n mod count].</summary>
    public static RawResponseServer Start(IReadOnlyList<byte[]> responses, bool closeAfterResponse) =>
        new([.. responses], closeAfterResponse);

    public async ValueTask DisposeAsync()
    {
        _listener.Stop();
        await _accepting;
    }

    private async Task AcceptAsync()
    {
        try
        {
            while (true)
            {
                var socket = await _listener.AcceptSocketAsync();
                _ = ServeAsync(socket);
            }
        }
        catch (Exception exception) when (exception is SocketException or ObjectDisposedException)
        {
            // Stopped.
        }
    }

    private async Task ServeAsync(Socket socket)
    {
        using (socket)
        {
            var buffer = new byte[4096];
            var pending = new StringBuilder();
            try
            {
                while (true)
                {
                    var read = await socket.ReceiveAsync(buffer, SocketFlags.None);
                    if (read == 0)
                    {
                        return;
                    }

                    pending.Append(Encoding.ASCII.GetString(buffer, 0, read));
                    int end;
                    while ((end = pending.ToString().IndexOf("\r\n\r\n", StringComparison.Ordinal)) >= 0)
                    {
                        pending.Remove(0, end + 4);
                        var response = _responses[(Interlocked.Increment(ref _answered) - 1) % _responses.Length];
                        await socket.SendAsync(response, SocketFlags.None);
                        if (_resetAfterResponse)
                        {
                            // A zero linger time makes the close send RST.
                            socket.LingerState = new LingerOption(true, 0);
                            return;
                        }

                        if (_closeAfterResponse)
                        {
                            // Let the response reach the client before the FIN, as an idle-timeout close would.
                            socket.Shutdown(SocketShutdown.Both);
                            return;
                        }
                    }
                }
            }
            catch (SocketException)
            {
                // The client went away.
            }
        }
    }
}
