using System.Text;

namespace Freight.Bench.Load.Engine;

/// <summary>
/// What every request of a raw HTTP/1.1 run sends, built once: the head (request line, Host, the run's header
/// fields and, with a body, Content-Type and Content-Length) and the file the body is sent from, read anew for
/// every request in 64 KiB pieces.
/// </summary>
internal sealed class RawHttp11Request
{
    private RawHttp11Request(byte[] head, string? bodyFile, long bodyLength, bool idempotent)
    {
        Head = head;
        BodyFile = bodyFile;
        BodyLength = bodyLength;
        Idempotent = idempotent;
    }

    /// <summary>The request line and header fields, CRLF CRLF included.</summary>
    public ReadOnlyMemory<byte> Head { get; }

    /// <summary>The file whose bytes are the body; null: no body.</summary>
    public string? BodyFile { get; }

    /// <summary>The body's length, sent as Content-Length; the file must still have it when each request is sent.</summary>
    public long BodyLength { get; }

    /// <summary>
    /// RFC 9110 §9.2.2: GET and PUT may be sent again on a new connection when the server closed the reused one
    /// while it was idle (RFC 9112 §9.3.1); POST and PATCH may not.
    /// </summary>
    public bool Idempotent { get; }

    /// <summary>
    /// <c>{method} {path} HTTP/1.1</c>, <c>Host</c> (RFC 9112 §3, §3.2; a Host among <paramref name="headers"/> replaces
    /// it), with a body its Content-Type (unless <paramref name="headers"/> has one) and Content-Length, then the run's
    /// other fields as given (Content-Length and Transfer-Encoding are the client's own: theirs are left out).
    /// <paramref name="body"/> is null or a body of one file (<see cref="RequestBody.SendableFile"/>).
    /// </summary>
    public static RawHttp11Request Build(Uri target, HttpMethod method, IReadOnlyList<KeyValuePair<string, string>> headers, RequestBody? body)
    {
        ArgumentNullException.ThrowIfNull(target);
        ArgumentNullException.ThrowIfNull(method);
        ArgumentNullException.ThrowIfNull(headers);
        var file = body?.SendableFile;
        if (body is not null && file is null)
        {
            throw new ArgumentException("The raw HTTP/1.1 transport sends bodies of one file only.", nameof(body));
        }

        var head = new StringBuilder($"{method.Method} {target.PathAndQuery} HTTP/1.1\r\n");
        if (!Has(headers, "Host"))
        {
            head.Append($"Host: {target.Authority}\r\n");
        }

        if (body is not null)
        {
            if (!Has(headers, "Content-Type"))
            {
                head.Append($"Content-Type: {body.ContentType}\r\n");
            }

            head.Append($"Content-Length: {body.Length}\r\n");
        }

        for (var i = 0; i < headers.Count; i++)
        {
            var (name, value) = headers[i];
            if (body is null
                || !(name.Equals("Content-Length", StringComparison.OrdinalIgnoreCase) || name.Equals("Transfer-Encoding", StringComparison.OrdinalIgnoreCase)))
            {
                head.Append($"{name}: {value}\r\n");
            }
        }

        return new RawHttp11Request(
            Encoding.Latin1.GetBytes(head.Append("\r\n").ToString()),
            file,
            body?.Length ?? 0,
            method == HttpMethod.Get || method == HttpMethod.Put);
    }

    private static bool Has(IReadOnlyList<KeyValuePair<string, string>> headers, string name)
    {
        for (var i = 0; i < headers.Count; i++)
        {
            if (headers[i].Key.Equals(name, StringComparison.OrdinalIgnoreCase))
            {
                return true;
            }
        }

        return false;
    }
}
