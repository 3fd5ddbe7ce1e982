using System.Text;

namespace Freight.Server.Tests.Infrastructure;

/// <summary>The study's form, byte by byte (RFC 7578): a field <c>SomeValue</c> and a file part <c>File</c>.</summary>
internal static class MultipartBodies
{
    public const string Boundary = "freight-test-boundary-7MA4YWxkTrZu0gW";

    public const string ContentType = "multipart/form-data; boundary=" + Boundary;

    /// <summary>Everything before the file's bytes: the field, then the file part's headers.</summary>
    public static byte[] Head(string headerPadding = "") => Encoding.ASCII.GetBytes(
        $"--{Boundary}\r\nContent-Disposition: form-data; name=\"SomeValue\"\r\n\r\n42\r\n" +
        $"--{Boundary}\r\nContent-Disposition: form-data; name=\"File\"; filename=\"payload.bin\"\r\n" +
        $"Content-Type: application/octet-stream\r\n{headerPadding}\r\n");

    /// <summary>The delimiter that ends the file part and the body.</summary>
    public static byte[] Tail() => Encoding.ASCII.GetBytes($"\r\n--{Boundary}--\r\n");

    /// <summary>A complete body carrying <paramref name="file"/>.</summary>
    public static byte[] Complete(ReadOnlySpan<byte> file) => [.. Head(), .. file, .. Tail()];
}
