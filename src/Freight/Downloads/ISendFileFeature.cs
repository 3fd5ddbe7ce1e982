using System.IO.Pipelines;
using Microsoft.AspNetCore.Http;
using Microsoft.Win32.SafeHandles;

namespace Freight.Downloads;

/// <summary>
/// A connection's way to send file bytes with sendfile(2) in the place of an HTTP/1.x response body's bytes,
/// present on connections that <see cref="SendFileConnections"/> serves (cleartext, Linux). Kestrel still
/// frames the response, counts its bytes against Content-Length and keeps the connection alive afterwards.
/// </summary>
internal interface ISendFileFeature
{
    /// <summary>
    /// Sends <paramref name="count"/> bytes of <paramref name="file"/> from <paramref name="offset"/> as the next
    /// <paramref name="count"/> bytes of the response body written to <paramref name="responseWriter"/>, after
    /// everything written before them. Completes once the bytes have been handed to the kernel, or throws (the
    /// connection is then aborted: a body must never be cut short). The file handle is no longer used when it returns.
    /// While the socket makes a send wait, the client of <paramref name="response"/> is held to its minimum data rate
    /// (<see cref="ClientReadWatch"/>; null: not held to any): one reading at least that fast is not cut, however long the wait.
    /// </summary>
    Task SendFileAsync(PipeWriter responseWriter, SafeFileHandle file, long offset, long count, HttpContext? response, CancellationToken cancellationToken);
}
