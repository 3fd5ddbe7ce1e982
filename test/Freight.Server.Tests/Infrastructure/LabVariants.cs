namespace Freight.Server.Tests.Infrastructure;

/// <summary>The lab's endpoint variants (<c>/lab/download/{variant}</c>, <c>/lab/upload/{variant}</c>).</summary>
internal static class LabVariants
{
    public static readonly string[] Downloads = ["stream-4k", "stream-default", "stream-64k", "bytes", "pipewriter", "file", "freight"];

    /// <summary>Uploads whose body is the file itself.</summary>
    public static readonly string[] RawUploads = ["raw-stream", "raw-pipe", "freight"];

    /// <summary>Uploads of <c>multipart/form-data</c> with a file part <c>File</c> and a field <c>SomeValue</c>.</summary>
    public static readonly string[] MultipartUploads = ["iformfile", "multipart-reader", "multipart-freight"];

    public static readonly string[] Uploads = [.. RawUploads, .. MultipartUploads];

    public static bool IsMultipart(string variant) => MultipartUploads.Contains(variant);

    /// <summary>The Content-Type an upload variant expects.</summary>
    public static string ContentType(string variant) => IsMultipart(variant) ? MultipartBodies.ContentType : "application/octet-stream";
}
