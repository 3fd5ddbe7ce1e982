using System.Buffers;
using System.Globalization;
using System.IO.Pipelines;
using System.Runtime.InteropServices;
using Freight.Storage;
using Freight.Storage.Unix;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core.Features;
using Microsoft.Extensions.Primitives;
using Microsoft.Net.Http.Headers;
using Microsoft.Win32.SafeHandles;

namespace Freight.Downloads;

/// <summary>
/// Freight's file GET/HEAD: validators and type from <see cref="FileCache"/>, conditional requests
/// (304/412), byte ranges (206/416, RFC 9110 §14) with If-Range, and the bytes either copied from the
/// cached content into the response writer (small files), read from the open file straight into the
/// writer's memory by <see cref="FileSender"/>, or, for a store with neither (S3), read from one
/// <see cref="IObjectReader.OpenRangeAsync"/> stream per range into the writer's memory. On a connection that
/// offers it (<see cref="SendFileConnections"/>: cleartext HTTP/1.x), a range of an open file over
/// <see cref="SendFileAboveBytes"/> is sent by sendfile(2) instead and never enters the process. No 16 KiB copy
/// buffer, no FileStream, no per-request header formatting on the plain GET.
/// </summary>
public static class FileResponder
{
    /// <summary>
    /// Files up to this size that are copied (not cached, and not sent by sendfile: HTTPS, HTTP/2, Freight:SendFile
    /// off, the S3 store) are read into the response writer whole and flushed once. 256 KiB: at 128 KiB
    /// this cut the server's CPU and allocations per request against chunk-by-chunk flushing
    /// (docs/results/2026-11-21-static.md); above it a client waits for the first bytes while the rest is read.
    /// The same bound applies to the body of a 206 (one range, or all parts of a multipart one).
    /// </summary>
    public const int WholeWriteMaxBytes = 256 * 1024;

    /// <summary>
    /// A range of an open file larger than this leaves by sendfile(2) where the connection offers it, whether or not
    /// it fits <see cref="WholeWriteMaxBytes"/>: for 128 KiB files under wrk at 32 connections the server's CPU per
    /// response was 93 µs read whole and copied, 79 µs from the cache and 45 µs by sendfile (nginx: 52; medians of 5
    /// rounds, docs/results/2026-11-25-small-files.md). Files up to 64 KiB come from <see cref="FileCache"/> by
    /// default and never reach this choice; sent by sendfile instead (cache off, threshold 0), 16 KiB files cost 27.2
    /// against 23.5 µs from memory: the hand-offs to the send loop cost more than the copies they save
    /// (docs/results/2026-11-27-kestrel-floor.md). Between 64 and 128 KiB it was not measured.
    /// </summary>
    public const int SendFileAboveBytes = 64 * 1024;

    // Kestrel's heartbeat refreshes its Date once a second on a thread of its own; five leave room for a late beat.
    private const int OwnDateWithinSeconds = 5;

    // AT_FDCWD: openat resolves the path as open(2) would (callers pass full paths).
    private static readonly SafeFileHandle s_currentDirectory = new(LinuxFiles.AtFdCwd, ownsHandle: false);

    private static bool s_openatWorks = LinuxFiles.IsSupported;

    // §14.3: every answer that could have been a range says ranges work; one shared value, no allocation.
    private static readonly StringValues s_acceptBytes = new("bytes");

    /// <summary>
    /// Answers the request with the file at <paramref name="path"/> (a full path the caller has already
    /// confined to its root). False, with nothing written, when there is no such file (or it is a directory):
    /// the caller answers 404 its own way.
    /// </summary>
    public static async Task<bool> TrySendAsync(HttpContext context, FileCache cache, string path)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(cache);
        var representation = TryDescribe(cache, path, out var file);
        using (file)
        {
            if (representation is null)
            {
                return false;
            }

            await SendAsync(context, representation, file.File);
            return true;
        }
    }

    /// <summary>
    /// The representation of the file at <paramref name="path"/>, and in <paramref name="file"/> the open file its bytes
    /// come from (none when they are in memory): from <paramref name="cache"/> while fresh, else from the file opened
    /// and described now. The caller disposes the lease once the bytes are sent. Null when there is no such regular file.
    /// </summary>
    internal static FileRepresentation? TryDescribe(FileCache cache, string path, out FileLease file)
    {
        if (cache.TryGetFresh(path, out file) is { } fresh)
        {
            return fresh;
        }

        var opened = TryOpenRead(path, out var version);
        if (opened is null)
        {
            // Deleted behind the server's back: the entry (and any file kept open for it) goes too.
            cache.Invalidate(path);
            return null;
        }

        try
        {
            var representation = cache.Describe(path, opened, version);
            file = cache.Keep(path, representation, opened);
            return representation;
        }
        catch
        {
            opened.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Answers a GET or HEAD with a representation the caller has already looked up (the files API, from its
    /// store): ETag, Last-Modified, preconditions (304/412), Accept-Ranges, Range and If-Range (206/416), and
    /// the bytes from <see cref="FileRepresentation.Content"/> or, when that is null, from <paramref name="file"/>,
    /// which must hold exactly the representation's bytes; the caller keeps it open until the returned task completes.
    /// </summary>
    public static Task SendAsync(HttpContext context, FileRepresentation representation, SafeFileHandle? file)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(representation);
        if (representation.Content is null && file is null)
        {
            throw new ArgumentException("Without cached content the representation's bytes come from an open file.", nameof(file));
        }

        return SendCoreAsync(context, representation, file, reader: null);
    }

    /// <summary>
    /// As <see cref="SendAsync(HttpContext, FileRepresentation, SafeFileHandle?)"/>, for a store whose reader has
    /// neither a file handle nor the content in memory (S3): the bytes of a 200 come from one
    /// <see cref="IObjectReader.OpenRangeAsync"/> of the whole object, those of a 206 from one per range; HEAD,
    /// 304, 412 and 416 open none. <paramref name="reader"/> must describe the representation's bytes; the
    /// caller keeps it open until the returned task completes. A range that ends early throws, so the
    /// response is aborted rather than cut short.
    /// </summary>
    public static Task SendAsync(HttpContext context, FileRepresentation representation, IObjectReader reader)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(representation);
        ArgumentNullException.ThrowIfNull(reader);
        if (reader.Info.Length != representation.Length)
        {
            throw new ArgumentException("The reader must hold exactly the representation's bytes.", nameof(reader));
        }

        return SendCoreAsync(context, representation, file: null, reader);
    }

    /// <summary>The answer for either body source: <paramref name="file"/> or <paramref name="reader"/>, whichever is not null, when the representation has no content.</summary>
    private static Task SendCoreAsync(HttpContext context, FileRepresentation representation, SafeFileHandle? file, IObjectReader? reader)
    {
        var request = context.Request;
        var response = context.Response;
        var headers = response.Headers;
        headers.ETag = representation.ETagHeader;
        var now = DateTimeOffset.UtcNow;
        SetLastModified(headers, representation, now);

        switch (Preconditions.Evaluate(request, representation.EntityTag, representation.LastModified, now))
        {
            case PreconditionOutcome.NotModified:
                response.StatusCode = StatusCodes.Status304NotModified;
                return Task.CompletedTask;
            case PreconditionOutcome.PreconditionFailed:
                response.StatusCode = StatusCodes.Status412PreconditionFailed;
                return Task.CompletedTask;
        }

        headers.AcceptRanges = s_acceptBytes;

        // §14.2: range handling is defined for GET only, so HEAD (and anything else) ignores Range and gets
        // the 200 headers. §13.2.2 step 5: If-Range after the other preconditions; a stale validator means
        // the whole representation. A plain GET pays one header lookup here.
        var range = request.Headers.Range;
        if (range.Count > 0 && HttpMethods.IsGet(request.Method)
            && Preconditions.IfRangeHolds(request, representation.EntityTag, representation.LastModified, now))
        {
            var ranges = ByteRangeSet.Parse(range, representation.Length);
            if (ranges.Outcome != ByteRangeOutcome.Ignore)
            {
                return SendRangesAsync(context, representation, file, reader, ranges);
            }
        }

        headers.ContentType = representation.ContentTypeHeader;
        response.ContentLength = representation.Length;
        if (HttpMethods.IsHead(request.Method))
        {
            return Task.CompletedTask;
        }

        return WriteAsync(context, response.BodyWriter, representation, file, reader, 0, representation.Length, representation.Length > WholeWriteMaxBytes);
    }

    /// <summary>
    /// Last-Modified, never later than the response's Date (RFC 9110 §8.8.2.1). Kestrel's Date is the one its heartbeat
    /// formats once a second, up to a second behind the clock, so a file written within the current second could carry a
    /// Last-Modified a second after it. A response for a file modified less than <see cref="OwnDateWithinSeconds"/> ago
    /// carries a Date of its own, read with the preconditions' clock at <paramref name="now"/> (Kestrel keeps a Date
    /// the app set), and a modification time ahead of that clock is replaced by that Date, as §8.8.2.1 says. Any
    /// other file keeps Kestrel's Date: no per-request formatting.
    /// </summary>
    private static void SetLastModified(IHeaderDictionary headers, FileRepresentation representation, DateTimeOffset now)
    {
        if (now.UtcTicks - representation.LastModified.UtcTicks >= OwnDateWithinSeconds * TimeSpan.TicksPerSecond)
        {
            headers.LastModified = representation.LastModifiedHeader;
            return;
        }

        var date = HeaderUtilities.FormatDate(now);
        headers.Date = date;
        headers.LastModified = representation.LastModified <= now ? representation.LastModifiedHeader : date;
    }

    private static Task SendRangesAsync(HttpContext context, FileRepresentation representation, SafeFileHandle? file, IObjectReader? reader, ByteRangeSet ranges)
    {
        var response = context.Response;
        var length = representation.Length;
        if (ranges.Outcome == ByteRangeOutcome.Unsatisfiable)
        {
            // §15.5.17: 416 with the current length, so the client can ask again. No body: this code answers
            // under any endpoint and has no problem writer of its own; status and Content-Range say it all,
            // and Content-Length 0 keeps HTTP/1.1 from chunking an empty body.
            response.StatusCode = StatusCodes.Status416RangeNotSatisfiable;
            response.Headers.ContentRange = string.Create(CultureInfo.InvariantCulture, $"bytes */{length}");
            response.ContentLength = 0;
            return Task.CompletedTask;
        }

        response.StatusCode = StatusCodes.Status206PartialContent;
        if (ranges.Ranges.Count == 1)
        {
            // §15.3.7.1: one part is sent as the body itself, with Content-Range and the representation's type.
            var only = ranges.Ranges[0];
            response.Headers.ContentType = representation.ContentTypeHeader;
            response.Headers.ContentRange = string.Create(CultureInfo.InvariantCulture, $"bytes {only.First}-{only.Last}/{length}");
            response.ContentLength = only.Length;
            return WriteAsync(context, response.BodyWriter, representation, file, reader, only.First, only.Length, only.Length > WholeWriteMaxBytes);
        }

        return SendMultipartAsync(context, representation, file, reader, ranges.Ranges);
    }

    /// <summary>§15.3.7.2: several parts as multipart/byteranges (§14.6), with a Content-Length computed up front.</summary>
    private static async Task SendMultipartAsync(HttpContext context, FileRepresentation representation, SafeFileHandle? file, IObjectReader? reader, IReadOnlyList<ByteRange> ranges)
    {
        var response = context.Response;
        var multipart = MultipartByteRanges.Create(ranges, representation.ContentType, representation.Length);
        response.Headers.ContentType = multipart.ContentType;
        response.ContentLength = multipart.ContentLength;
        var writer = response.BodyWriter;

        // A small body leaves in one send at the end of the request, as a small file does; a large one flushes
        // as each part's bytes are read (at least once per part: ≤ MaxRanges flushes).
        var sendInChunks = multipart.ContentLength > WholeWriteMaxBytes;
        for (var i = 0; i < ranges.Count; i++)
        {
            if (context.RequestAborted.IsCancellationRequested)
            {
                // The client left: reading the remaining parts would be for nobody.
                return;
            }

            writer.Write(multipart.PartHeads[i]);
            await WriteAsync(context, writer, representation, file, reader, ranges[i].First, ranges[i].Length, sendInChunks);
        }

        writer.Write(multipart.Close);

        // Once a response has flushed, Kestrel's HTTP/1.1 end of response does not flush what follows: the close
        // delimiter stayed in the pipe and the client waited for its last 40 bytes (observed on .NET 10). A part
        // over SendFileAboveBytes may have flushed even in a small body (sendfile), so this flush is unconditional;
        // when nothing flushed before, it is the one send the end of the request would have made.
        await writer.FlushAsync(context.RequestAborted);
    }

    /// <summary>
    /// Writes <paramref name="count"/> bytes of the file from <paramref name="offset"/>: from the cached
    /// content, read from the open file, or from the store's reader; without a flush unless <paramref name="sendInChunks"/>.
    /// A range of an open file over <see cref="SendFileAboveBytes"/> goes by sendfile(2) where the connection offers it
    /// (<see cref="SendFileFor"/>), which flushes what precedes it.
    /// </summary>
    private static Task WriteAsync(HttpContext context, PipeWriter writer, FileRepresentation representation, SafeFileHandle? file, IObjectReader? reader, long offset, long count, bool sendInChunks)
    {
        if (representation.Content is { } content)
        {
            // The response is started first, so Kestrel writes the head into its output and the body lands right after
            // it; headers and body leave in one write when the endpoint returns (no flush here). A body written before
            // the head is held in a buffer of its own and copied once more behind the head
            // (Http1OutputProducer.WriteDataWrittenBeforeHeaders: 3.4 % of the server's CPU on a 16 KiB file under
            // wrk, docs/results/2026-11-27-nginx-file-cache.md).
            var started = context.Response.StartAsync();
            if (!started.IsCompletedSuccessfully)
            {
                return WriteContentAfterAsync(started, writer, content.Slice((int)offset, (int)count));
            }

            WriteContent(writer, content.Span.Slice((int)offset, (int)count));
            return Task.CompletedTask;
        }

        if (reader is not null)
        {
            return CopyRangeAsync(writer, reader, offset, count, sendInChunks, context);
        }

        if (count > SendFileAboveBytes && SendFileFor(context) is { } sendFile)
        {
            return sendFile.SendFileAsync(writer, file!, offset, count, context, context.RequestAborted);
        }

        if (!sendInChunks)
        {
            // Read all of it into the writer and let the end of the request flush it: one send, no await per
            // chunk (each await that completes later costs a state machine on the heap).
            FileSender.Read(writer, file!, offset, count);
            return Task.CompletedTask;
        }

        return FileSender.SendAsync(writer, file!, offset, count, context, context.RequestAborted);
    }

    private static async Task WriteContentAfterAsync(Task started, PipeWriter writer, ReadOnlyMemory<byte> content)
    {
        await started;
        WriteContent(writer, content.Span);
    }

    private static void WriteContent(PipeWriter writer, ReadOnlySpan<byte> content)
    {
        writer.Write(content);
        Telemetry.FreightTelemetry.DownloadBytes.Add(content.Length);
    }

    /// <summary>
    /// The connection's sendfile, when this response may use it: cleartext (on a TLS listener that has
    /// <see cref="SendFileConnections"/> outside its TLS middleware, sendfile would put the file's plaintext under the TLS
    /// stream; asked of the connection's TLS feature, not the request's scheme, which a trusted proxy's
    /// <c>X-Forwarded-Proto: https</c> sets over a cleartext connection), HTTP/1.x (an HTTP/2 body is framed, and its connection is never a <see cref="SendFileConnection"/>'s
    /// anyway) and a body writer that is still Kestrel's own (a middleware that replaced it would see stand-ins for the
    /// file's bytes, not the bytes).
    /// </summary>
    private static ISendFileFeature? SendFileFor(HttpContext context)
    {
        var features = context.Features;
        if (features.Get<ISendFileFeature>() is not { } sendFile
            || features.Get<ITlsConnectionFeature>() is not null
            || !(HttpProtocol.IsHttp11(context.Request.Protocol) || HttpProtocol.IsHttp10(context.Request.Protocol))
            || !ReferenceEquals(features.Get<IHttpResponseBodyFeature>(), features.Get<IHttpResponseFeature>()))
        {
            return null;
        }

        return sendFile;
    }

    /// <summary>
    /// Copies <paramref name="count"/> bytes from <paramref name="offset"/> of <paramref name="reader"/> through one
    /// <see cref="IObjectReader.OpenRangeAsync"/> stream, read straight into the writer's memory, and flushes as
    /// <see cref="FileSender"/> does when <paramref name="sendInChunks"/>: 64 KiB first, doubling up to 1 MiB.
    /// </summary>
    private static async Task CopyRangeAsync(PipeWriter writer, IObjectReader reader, long offset, long count, bool sendInChunks, HttpContext context)
    {
        var cancellationToken = context.RequestAborted;
        if (count == 0)
        {
            // An empty object: nothing to fetch, and S3 has no way to ask for zero bytes.
            return;
        }

        await using var source = await reader.OpenRangeAsync(offset, count, cancellationToken);
        using var flushes = new WatchedFlushes(writer, context);
        var flushAfter = FileSender.FirstChunkSize;
        var unflushed = 0;
        while (count > 0)
        {
            var memory = writer.GetMemory((int)Math.Min(FileSender.ReadSize, count));
            if (memory.Length > count)
            {
                memory = memory[..(int)count];
            }

            var read = await source.ReadAsync(memory, cancellationToken);
            if (read == 0)
            {
                // Throwing aborts the response (a 500 if nothing has left yet): a short body must never pass for the range.
                throw new EndOfStreamException($"'{reader.Info.Key}' ended {count} bytes before the range did.");
            }

            writer.Advance(read);
            Telemetry.FreightTelemetry.DownloadBytes.Add(read);
            count -= read;
            unflushed += read;
            if (!sendInChunks || (unflushed < flushAfter && count > 0))
            {
                continue;
            }

            unflushed = 0;
            flushAfter = Math.Min(flushAfter * 2, FileSender.MaxChunkSize);
            var flush = await flushes.FlushAsync(cancellationToken);
            if (flush.IsCanceled || flush.IsCompleted)
            {
                // The client is gone: the rest of the range would be fetched for nobody.
                return;
            }
        }
    }

    /// <summary>The file at <paramref name="path"/> opened for reading, or null when there is no regular file there (none, a directory, a FIFO or a device).</summary>
    public static SafeFileHandle? TryOpenRead(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        return TryOpenRead(path, out _);
    }

    /// <summary>
    /// As <see cref="TryOpenRead(string)"/>, with the file's version read on the way. On Linux: openat and one statx,
    /// and no lock — File.OpenHandle adds two flock calls (its FileShare emulation) and a stat of its own, and the
    /// cache reads length and time with two more: 5.1 against 3.1 µs an open on this project's VM, and 2–10 % of the
    /// server's CPU per 128 KiB response under wrk (docs/results/2026-11-27-request-overhead.md). O_NONBLOCK: a FIFO at the
    /// path would otherwise hold the request until a writer came; on a regular file the flag changes nothing.
    /// </summary>
    internal static SafeFileHandle? TryOpenRead(string path, out FileVersion version)
    {
        if (s_openatWorks)
        {
            var fd = LinuxFiles.Openat(s_currentDirectory, path, LinuxFiles.ORdOnly | LinuxFiles.OCloExec | LinuxFiles.ONonBlock, 0);
            if (fd < 0)
            {
                var error = Marshal.GetLastPInvokeError();
                version = default;
                return error is LinuxFiles.ENoEnt or LinuxFiles.ENotDir or LinuxFiles.EAcces or LinuxFiles.EIsDir
                    ? null
                    : throw new IOException($"{Marshal.GetPInvokeErrorMessage(error)} : '{path}'", error);
            }

            var file = new SafeFileHandle(fd, ownsHandle: true);
            var stated = LinuxFiles.StatxAt(file, "", LinuxFiles.AtEmptyPath, LinuxFiles.StatxType | FileVersion.Wanted, out var stat) == 0;
            var statError = stated ? 0 : Marshal.GetLastPInvokeError();
            if (stated && stat.IsRegularFile)
            {
                version = FileVersion.From(stat) ?? FileVersion.Of(file);
                return file;
            }

            file.Dispose();
            version = default;
            if (stated)
            {
                return null;
            }

            if (statError is not (LinuxFiles.ENoSys or LinuxFiles.EPerm))
            {
                throw new IOException($"{Marshal.GetPInvokeErrorMessage(statError)} : '{path}'", statError);
            }

            // No statx here (an old kernel, a seccomp filter): .NET's own open from now on.
            s_openatWorks = false;
        }

        try
        {
            var file = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.Read);
            version = FileVersion.Of(file);
            return file;
        }
        catch (Exception missing) when (missing is FileNotFoundException or DirectoryNotFoundException or UnauthorizedAccessException)
        {
            // A directory opens as UnauthorizedAccess on Unix: not a file either way.
            version = default;
            return null;
        }
    }
}
