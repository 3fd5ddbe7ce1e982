using System.Buffers;
using Microsoft.AspNetCore.Http;
using Microsoft.Win32.SafeHandles;

namespace Freight.Downloads;

/// <summary>
/// Freight's file GET/HEAD: validators and type from <see cref="FileCache"/>, conditional requests
/// (304/412), and the bytes either copied from the cached content into the response writer (small files)
/// or read from the open file straight into the writer's memory by <see cref="FileSender"/>. No 16 KiB
/// copy buffer, no FileStream, no per-request header formatting.
/// </summary>
public static class FileResponder
{
    /// <summary>
    /// Files up to this size are read into the response writer whole and flushed once. 256 KiB: at 128 KiB
    /// this cut the server's CPU and allocations per request against chunk-by-chunk flushing
    /// (docs/results/2026-11-21-static.md); above it a client waits for the first bytes while the rest is read.
    /// </summary>
    public const int WholeWriteMaxBytes = 256 * 1024;

    /// <summary>
    /// Answers the request with the file at <paramref name="path"/> (a full path the caller has already
    /// confined to its root). False, with nothing written, when there is no such file (or it is a directory):
    /// the caller answers 404 its own way.
    /// </summary>
    public static async Task<bool> TrySendAsync(HttpContext context, FileCache cache, string path)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(cache);
        SafeFileHandle? file = null;
        try
        {
            var representation = cache.TryGetFresh(path);
            if (representation is null)
            {
                file = TryOpen(path);
                if (file is null)
                {
                    return false;
                }

                representation = cache.Describe(path, file);
            }

            var response = context.Response;
            var headers = response.Headers;
            headers.ETag = representation.ETagHeader;
            headers.LastModified = representation.LastModifiedHeader;

            switch (Preconditions.Evaluate(context.Request, representation.EntityTag, representation.LastModified))
            {
                case PreconditionOutcome.NotModified:
                    response.StatusCode = StatusCodes.Status304NotModified;
                    return true;
                case PreconditionOutcome.PreconditionFailed:
                    response.StatusCode = StatusCodes.Status412PreconditionFailed;
                    return true;
            }

            headers.ContentType = representation.ContentTypeHeader;
            response.ContentLength = representation.Length;
            if (HttpMethods.IsHead(context.Request.Method))
            {
                return true;
            }

            if (representation.Content is { } content)
            {
                // Headers and body leave in one write when the endpoint returns: no flush here.
                response.BodyWriter.Write(content.Span);
                return true;
            }

            if (representation.Length <= WholeWriteMaxBytes)
            {
                // Read the whole file into the writer and let the end of the request flush it: one send, no
                // await per chunk (each await that completes later costs a state machine on the heap).
                FileSender.Read(response.BodyWriter, file!, 0, representation.Length);
                return true;
            }

            await FileSender.SendAsync(response.BodyWriter, file!, 0, representation.Length, context.RequestAborted);
            return true;
        }
        finally
        {
            file?.Dispose();
        }
    }

    private static SafeFileHandle? TryOpen(string path)
    {
        try
        {
            return File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.Read);
        }
        catch (Exception missing) when (missing is FileNotFoundException or DirectoryNotFoundException or UnauthorizedAccessException)
        {
            // A directory opens as UnauthorizedAccess on Unix: not a file either way.
            return null;
        }
    }
}
