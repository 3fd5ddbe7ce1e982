// The floors under Freight's small-file responses. Answers GET /lab/static/freight/{name} from memory, with the head
// Freight sends (status, Content-Length, Content-Type, Date), one of three ways (FLOOR_MODE):
//   kestrel: a bare Kestrel app: no routing, no middleware, no logging; the body written after StartAsync
//   kestrel-inline: the same with Kestrel's UnsafePreferInlineScheduling (set DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS=1 too)
//   sockets: no HTTP server at all: .NET sockets, one async loop a connection, requests found by their blank line
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

if (mode == "sockets")
{
    await ServeSocketsAsync(new IPEndPoint(IPAddress.Loopback, url.Port), files);
    return;
}

var builder = WebApplication.CreateSlimBuilder();
builder.Logging.ClearProviders();
builder.WebHost.UseUrls(url.ToString());
builder.WebHost.ConfigureKestrel(k => k.AddServerHeader = false);
builder.Services.Configure<SocketTransportOptions>(t => t.UnsafePreferInlineScheduling = mode == "kestrel-inline");
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

static async Task ServeSocketsAsync(IPEndPoint endPoint, Dictionary<string, byte[]> files)
{
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
        _ = Task.Run(() => ServeConnectionAsync(socket, responses, notFound));
    }
}

static async Task ServeConnectionAsync(Socket socket, Dictionary<string, byte[]> responses, byte[] notFound)
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
                await socket.SendAsync(responses.TryGetValue(path, out var response) ? response : notFound, SocketFlags.None);
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
