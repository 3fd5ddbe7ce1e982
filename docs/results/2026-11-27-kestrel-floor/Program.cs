// The floors under Freight's small-file responses. Answers GET /lab/static/freight/{name} with the head Freight sends
// (status, Content-Length, Content-Type, Date), one of these ways (FLOOR_MODE); the first three send from memory:
//   kestrel: a bare Kestrel app: no routing, no middleware, no logging; the body written after StartAsync
//   kestrel-inline: the same with Kestrel's UnsafePreferInlineScheduling (set DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS=1 too)
//   sockets: no HTTP server at all: .NET sockets, one async loop a connection, requests found by their blank line
//   sockets-sendfile: the same loop, sending as nginx does: the head by send(2) with MSG_MORE, the body by sendfile(2)
//     from a file kept open, both called on the loop's thread (set DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS=1 to
//     keep that thread the socket engine's: no thread-pool hop at all)
//   kestrel-conn, kestrel-conn-inline: Kestrel's socket transport, and a connection middleware in front of its HTTP layer
//     that reads the requests from the connection's input pipe and answers each as sockets-sendfile does, on the
//     socket itself (what a fast path inside Kestrel could cost; -inline with UnsafePreferInlineScheduling). No request
//     ever reaches the HTTP layer: a floor, not a server (an unknown path closes the connection)
// FLOOR_DIR: the files to hold. Usage as `freight serve`: dotnet floor.dll serve --urls http://127.0.0.1:PORT ...
using System.Buffers;
using System.Net;
using System.Net.Sockets;
using System.Text;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;

var url = new Uri(args[Array.IndexOf(args, "--urls") + 1]);
var dir = Environment.GetEnvironmentVariable("FLOOR_DIR")!;
var files = Directory.GetFiles(dir).ToDictionary(f => "/lab/static/freight/" + Path.GetFileName(f), File.ReadAllBytes);
var mode = Environment.GetEnvironmentVariable("FLOOR_MODE") ?? "kestrel";

if (mode is "sockets" or "sockets-sendfile")
{
    await ServeSocketsAsync(new IPEndPoint(IPAddress.Loopback, url.Port), files, dir, mode == "sockets-sendfile");
    return;
}

var builder = WebApplication.CreateSlimBuilder();
builder.Logging.ClearProviders();
if (!mode.StartsWith("kestrel-conn"))
{
    builder.WebHost.UseUrls(url.ToString());
}
builder.WebHost.ConfigureKestrel(k =>
{
    k.AddServerHeader = false;
    if (mode.StartsWith("kestrel-conn"))
    {
        var heads = Heads(files, dir);
        k.Listen(IPAddress.Loopback, url.Port, listen => listen.Use(next => connection => ServeFromTransportAsync(connection, heads)));
    }
});
builder.Services.Configure<SocketTransportOptions>(t => t.UnsafePreferInlineScheduling = mode.EndsWith("-inline"));
var app = builder.Build();
app.Run(async context =>
{
    if (!files.TryGetValue(context.Request.Path.Value!, out var body))
    {
        context.Response.StatusCode = 404;
        return;
    }

    context.Response.ContentType = "application/octet-stream";
    context.Response.ContentLength = body.Length;
    await context.Response.StartAsync();
    context.Response.BodyWriter.Write(body);
});
app.Run();

static async Task ServeSocketsAsync(IPEndPoint endPoint, Dictionary<string, byte[]> files, string dir, bool sendFile)
{
    var heads = Heads(files, dir);
    // Each file's whole response, head and body, built once; the Date header is fixed (the floor does not format it).
    var responses = files.ToDictionary(f => f.Key, f => Encoding.ASCII.GetBytes(
        $"HTTP/1.1 200 OK\r\nContent-Length: {f.Value.Length}\r\nContent-Type: application/octet-stream\r\nDate: {DateTime.UtcNow:R}\r\n\r\n").Concat(f.Value).ToArray());
    var notFound = Encoding.ASCII.GetBytes("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
    using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
    listener.Bind(endPoint);
    listener.Listen(512);
    while (true)
    {
        var socket = await listener.AcceptAsync();
        socket.NoDelay = true;
        _ = Task.Run(() => ServeConnectionAsync(socket, responses, notFound, sendFile ? heads : null));
    }
}

// sockets-sendfile and kestrel-conn: each file's head alone, and the file open for the process's life (nginx's open_file_cache)
static Dictionary<string, (byte[] Head, Microsoft.Win32.SafeHandles.SafeFileHandle File, long Length)> Heads(
    Dictionary<string, byte[]> files, string dir) =>
    files.ToDictionary(f => f.Key, f => (Head: Encoding.ASCII.GetBytes(
            $"HTTP/1.1 200 OK\r\nContent-Length: {f.Value.Length}\r\nContent-Type: application/octet-stream\r\nDate: {DateTime.UtcNow:R}\r\n\r\n"),
        File: File.OpenHandle(Path.Combine(dir, Path.GetFileName(f.Key))), Length: (long)f.Value.Length));

static async Task ServeFromTransportAsync(Microsoft.AspNetCore.Connections.ConnectionContext connection,
    Dictionary<string, (byte[] Head, Microsoft.Win32.SafeHandles.SafeFileHandle File, long Length)> heads)
{
    var socket = connection.Features.Get<Microsoft.AspNetCore.Connections.Features.IConnectionSocketFeature>()!.Socket;
    var input = connection.Transport.Input;
    try
    {
        while (true)
        {
            var result = await input.ReadAsync();
            var buffer = result.Buffer;
            while (TakeRequestPath(ref buffer, out var path))
            {
                if (!heads.TryGetValue(path, out var file))
                {
                    return;
                }

                SendFile.Send(socket, file.Head, file.File, file.Length);
            }

            input.AdvanceTo(buffer.Start, buffer.End);
            if (result.IsCompleted)
            {
                return;
            }
        }
    }
    catch (SocketException)
    {
    }
}

static bool TakeRequestPath(ref System.Buffers.ReadOnlySequence<byte> buffer, out string path)
{
    path = "";
    var reader = new SequenceReader<byte>(buffer);
    if (!reader.TryReadTo(out ReadOnlySequence<byte> head, "\r\n\r\n"u8))
    {
        return false;
    }

    var line = Encoding.ASCII.GetString(head.Slice(0, head.PositionOf((byte)'\r') ?? head.End));
    path = line.Split(' ')[1];
    buffer = buffer.Slice(reader.Position);
    return true;
}

static async Task ServeConnectionAsync(Socket socket, Dictionary<string, byte[]> responses, byte[] notFound,
    Dictionary<string, (byte[] Head, Microsoft.Win32.SafeHandles.SafeFileHandle File, long Length)>? heads)
{
    var buffer = new byte[16 * 1024];
    var filled = 0;
    try
    {
        while (true)
        {
            var read = await socket.ReceiveAsync(buffer.AsMemory(filled), SocketFlags.None);
            if (read == 0)
            {
                return;
            }

            filled += read;
            int end;
            while ((end = buffer.AsSpan(0, filled).IndexOf("\r\n\r\n"u8)) >= 0)
            {
                var line = buffer.AsSpan(0, buffer.AsSpan(0, end).IndexOf("\r\n"u8) is var l and >= 0 ? l : end);
                var path = Encoding.ASCII.GetString(line).Split(' ')[1];
                if (heads is not null && heads.TryGetValue(path, out var file))
                {
                    SendFile.Send(socket, file.Head, file.File, file.Length);
                }
                else
                {
                    await socket.SendAsync(responses.TryGetValue(path, out var response) ? response : notFound, SocketFlags.None);
                }
                var rest = filled - (end + 4);
                buffer.AsSpan(end + 4, rest).CopyTo(buffer);
                filled = rest;
            }
        }
    }
    catch (SocketException)
    {
    }
    finally
    {
        socket.Dispose();
    }
}

static unsafe class SendFile
{
    const int MsgMore = 0x8000;
    const int EAgain = 11;

    [System.Runtime.InteropServices.DllImport("libc", SetLastError = true)]
    static extern nint send(int fd, byte* buffer, nint length, int flags);

    [System.Runtime.InteropServices.DllImport("libc", SetLastError = true)]
    static extern nint sendfile(int outFd, int inFd, ref long offset, nint count);

    // The socket is non-blocking (the runtime's engine owns it): on EAGAIN wait for room with poll, which a floor may do.
    public static void Send(Socket socket, byte[] head, Microsoft.Win32.SafeHandles.SafeFileHandle file, long length)
    {
        var fd = (int)socket.SafeHandle.DangerousGetHandle();
        fixed (byte* p = head)
        {
            var sent = 0;
            while (sent < head.Length)
            {
                var n = send(fd, p + sent, head.Length - sent, MsgMore);
                if (n < 0)
                {
                    if (System.Runtime.InteropServices.Marshal.GetLastPInvokeError() != EAgain) throw new SocketException();
                    Wait(socket);
                    continue;
                }

                sent += (int)n;
            }
        }

        long offset = 0;
        while (offset < length)
        {
            var n = sendfile(fd, (int)file.DangerousGetHandle(), ref offset, (nint)(length - offset));
            if (n < 0)
            {
                if (System.Runtime.InteropServices.Marshal.GetLastPInvokeError() != EAgain) throw new SocketException();
                Wait(socket);
            }
        }
    }

    static void Wait(Socket socket) => socket.Poll(-1, SelectMode.SelectWrite);
}
