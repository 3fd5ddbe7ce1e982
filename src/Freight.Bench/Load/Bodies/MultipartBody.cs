using System.Text;
using Freight.Bench.Load.Engine;

namespace Freight.Bench.Load.Bodies;

/// <summary>
/// <c>--multipart</c>: another body as the one file part of a multipart/form-data form (RFC 7578), with a
/// fixed boundary so the whole length is known and sent as Content-Length. The part's head and the closing
/// delimiter are built once; the file's bytes stream from <paramref name="file"/> as usual.
/// </summary>
public sealed class MultipartBody : RequestBody
{
    /// <summary>RFC 2046 §5.1.1: up to 70 characters that never occur in the data; a random-looking fixed one.</summary>
    public const string Boundary = "freight-load-5c0b7a1e9d3f4b2a";

    private readonly RequestBody _file;
    private readonly byte[] _head;
    private readonly byte[] _tail;

    public MultipartBody(RequestBody file, string field, string fileName)
    {
        ArgumentNullException.ThrowIfNull(file);
        _file = file;
        _head = Encoding.UTF8.GetBytes(
            $"--{Boundary}\r\nContent-Disposition: form-data; name=\"{Quote(field)}\"; filename=\"{Quote(fileName)}\"\r\n"
            + $"Content-Type: {file.ContentType}\r\n\r\n");
        _tail = Encoding.ASCII.GetBytes($"\r\n--{Boundary}--\r\n");
        Length = _head.Length + file.Length + _tail.Length;
    }

    public override long Length { get; }

    public override string ContentType => $"multipart/form-data; boundary={Boundary}";

    public override async ValueTask WriteAsync(Stream destination, byte[] buffer, CancellationToken cancellationToken)
    {
        await destination.WriteAsync(_head, cancellationToken);
        await _file.WriteAsync(destination, buffer, cancellationToken);
        await destination.WriteAsync(_tail, cancellationToken);
    }

    // RFC 7578 §4.2: a quoted-string; quotes and line breaks in a name are percent-encoded as browsers do.
    private static string Quote(string value) =>
        value.Replace("\"", "%22", StringComparison.Ordinal).Replace("\r", "%0D", StringComparison.Ordinal).Replace("\n", "%0A", StringComparison.Ordinal);
}
