using System.Buffers;
using System.IO.Pipelines;
using Freight.Digests;
using Freight.Files;
using Freight.Resumable;
using Freight.AspNetCore.Errors;
using Freight.AspNetCore.Files;
using Freight.Storage;
using Freight.Telemetry;
using Freight.Uploads;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Net.Http.Headers;

namespace Freight.AspNetCore.Tus;

/// <summary>
/// Resumable uploads with the tus 1.0 protocol under the prefix the app maps it at (<c>app.MapFreightTus("/tus")</c>): core (HEAD, PATCH, OPTIONS) and the
/// creation, creation-with-upload, creation-defer-length, termination, checksum, expiration and
/// concatenation extensions. Chunks stream from the request's pipe straight to the upload's end in the
/// store; a finished upload becomes the file <c>{FilesPrefix}{filename}</c> of the files store atomically, with its ETag
/// (and SHA-256 when configured), like a PUT of the files API. Tokens and limits are the files API's; creations
/// also count against <see cref="TusQuota"/>.
/// </summary>
internal static class TusEndpoints
{
    public static RouteGroupBuilder Map(IEndpointRouteBuilder endpoints, PathString prefix)
    {
        endpoints.ServiceProvider.GetRequiredService<FreightRoutes>().Tus = prefix;
        // Resolved at the first request: options are validated when the host starts, naming the invalid key.
        var lazyUploads = new Lazy<TusUploads>(endpoints.ServiceProvider.GetRequiredService<TusUploads>);
        var tus = endpoints.MapGroup(prefix.Value ?? "");
        // "/" matches /tus and /tus/ alike (routing ignores a trailing slash).
        tus.MapMethods("/", [HttpMethods.Options], context => Handle(context, lazyUploads.Value.OptionsAsync, checkVersion: false));
        tus.MapPost("/", context => Handle(context, lazyUploads.Value.CreateAsync));

        tus.MapMethods("/{id}", [HttpMethods.Options], context => Handle(context, lazyUploads.Value.OptionsAsync, checkVersion: false));
        tus.MapMethods("/{id}", [HttpMethods.Head], context => Handle(context, lazyUploads.Value.HeadAsync));
        tus.MapPatch("/{id}", context => Handle(context, lazyUploads.Value.PatchAsync));
        tus.MapDelete("/{id}", context => Handle(context, lazyUploads.Value.DeleteAsync));
        // Clients behind proxies that only pass GET/POST send the real method in X-HTTP-Method-Override.
        tus.MapPost("/{id}", context => Handle(context, request => OverriddenMethodAsync(request, lazyUploads.Value)));
        return tus;
    }

    private static Task OverriddenMethodAsync(HttpContext context, TusUploads uploads) =>
        context.Request.Headers[TusProtocol.MethodOverrideHeader].ToString().ToUpperInvariant() switch
        {
            "PATCH" => uploads.PatchAsync(context),
            "DELETE" => uploads.DeleteAsync(context),
            "HEAD" => uploads.HeadAsync(context),
            _ => throw TusProtocol.Problem(StatusCodes.Status405MethodNotAllowed, "Method not allowed",
                "POST on an upload needs X-HTTP-Method-Override: PATCH, DELETE or HEAD; create uploads with a POST to the tus endpoint itself."),
        };

    private static async Task Handle(HttpContext context, Func<HttpContext, Task> handler, bool checkVersion = true)
    {
        // Every tus response carries the version, error responses too (they are written after a Clear()).
        context.Response.OnStarting(static state =>
        {
            ((HttpResponse)state).Headers[TusProtocol.ResumableHeader] = TusProtocol.Version;
            return Task.CompletedTask;
        }, context.Response);

        if (checkVersion && context.Request.Headers[TusProtocol.ResumableHeader].ToString() != TusProtocol.Version)
        {
            throw TusProtocol.Problem(StatusCodes.Status412PreconditionFailed, "Unsupported tus version",
                $"Send Tus-Resumable: {TusProtocol.Version}; it is the version this server speaks.",
                new Dictionary<string, string> { [TusProtocol.VersionHeader] = TusProtocol.Version });
        }

        await handler(context);
    }
}

/// <summary>The tus requests' logic, over one resumable store paired with the files store.</summary>
internal sealed class TusUploads(
    IResumableUploadStore store,
    ResumableUploadLocks locks,
    RunningDigests runningDigests,
    TusOptions options,
    FilesAccess access,
    UploadLimiter limiter,
    TusQuota quota,
    FreightRoutes routes,
    long maxUploadBytes,
    TimeProvider time)
{
    private readonly IResumableUploadStore store = InstrumentedResumableUploadStore.Instrument(store);

    private readonly StoragePrefix _prefix = StoragePrefix.TryParse(options.FilesPrefix, out var prefix, out _) ? prefix : StoragePrefix.Root;

    // How long a HEAD, PATCH or DELETE waits for the request holding its upload to let go once asked: a PATCH
    // stops at its next chunk, one cut off unwinds once the server notices. A holder that does not (held elsewhere past
    // it) leaves the waiting request a 423, as a request that must not hang on another. One finishing the upload
    // cannot let go, and is waited for as long as finishing may take (FinishTime).
    private static readonly TimeSpan s_takeOverPatience = TimeSpan.FromSeconds(5);

    // The slowest a finish is allowed to go through an upload's bytes, for the requests that wait for it: a quarter of
    // the slowest measured on the project's 2-core VM at a load average of 12, the tests' in-process Debug server,
    // file-system store, AlwaysComputeSha256 (177 MB/s, a final upload gathering two 512 MiB parts: read, written,
    // hashed; reading back a GiB whose running digests were lost and hashing it, 306–933 MB/s in three runs; with them,
    // the rename alone, under 10 ms), so a slower disk or a busier machine still fits.
    private const double SlowestFinishBytesPerSecond = 40_000_000;

    public Task OptionsAsync(HttpContext context)
    {
        var headers = context.Response.Headers;
        headers[TusProtocol.VersionHeader] = TusProtocol.Version;
        headers[TusProtocol.ExtensionHeader] = TusProtocol.Extensions;
        headers[TusProtocol.MaxSizeHeader] = maxUploadBytes.ToString(System.Globalization.CultureInfo.InvariantCulture);
        headers[TusProtocol.ChecksumAlgorithmHeader] = TusProtocol.ChecksumAlgorithms;
        context.Response.StatusCode = StatusCodes.Status204NoContent;
        return Task.CompletedTask;
    }

    public async Task CreateAsync(HttpContext context)
    {
        var request = context.Request;
        if (access.Refuses(context, write: true, HasBody(context) ? FreightTelemetry.Tus : null))
        {
            return;
        }

        var length = TusProtocol.Size(request, TusProtocol.LengthHeader);
        var deferred = request.Headers[TusProtocol.DeferLengthHeader].Count > 0;
        if (deferred && request.Headers[TusProtocol.DeferLengthHeader].ToString() != "1")
        {
            throw TusProtocol.Problem(StatusCodes.Status400BadRequest, "Malformed header", "Upload-Defer-Length can only be 1.");
        }

        var rawMetadata = request.Headers[TusProtocol.MetadataHeader].ToString();
        var metadata = TusProtocol.Metadata(rawMetadata);
        var (partial, finalParts) = TusProtocol.Concat(request, routes.Tus);
        if (finalParts is not null)
        {
            await CreateFinalAsync(context, finalParts, rawMetadata, metadata, length, deferred);
            return;
        }

        if (length is null == !deferred)
        {
            throw TusProtocol.Problem(StatusCodes.Status400BadRequest, "Length missing",
                "Send Upload-Length, or Upload-Defer-Length: 1 to give the length later — exactly one of them.");
        }

        if (length > maxUploadBytes)
        {
            throw TooLarge();
        }

        // creation-with-upload: the body is the first chunk, under a PATCH's rules. What can be refused before
        // the upload exists is refused first, so a refusal never leaves an upload the client was not told of.
        var hasBody = HasBody(context);
        var telemetry = hasBody ? UploadTelemetry.Start(context, FreightTelemetry.Tus, key: null) : null;
        if (hasBody && !IsOffsetStream(request))
        {
            throw TusProtocol.Problem(StatusCodes.Status415UnsupportedMediaType, "Wrong content type",
                $"A body on creation must be {TusProtocol.OffsetContentType}; nothing was created.");
        }

        if (hasBody && request.ContentLength > (length ?? maxUploadBytes))
        {
            throw TusProtocol.Problem(StatusCodes.Status413PayloadTooLarge, "Chunk exceeds the upload", "The body is longer than Upload-Length; nothing was created.");
        }

        using var checksum = hasBody ? TusProtocol.Checksum(request) : null;
        var id = ResumableUploadId.New();
        var now = time.GetUtcNow();
        var upload = new ResumableUpload
        {
            Id = id,
            Length = length,
            Metadata = rawMetadata.Length == 0 ? null : rawMetadata,
            Kind = partial ? ResumableUploadKind.Partial : ResumableUploadKind.Regular,
            TargetKey = partial ? null : TargetKey(metadata, id).Value,
            CreatedAt = now,
            LastActivityAt = now,
            Client = TusQuota.ClientOf(context),
        };
        await CreateCountedAsync(upload, limitClient: true, context.RequestAborted);

        var response = context.Response;
        var location = routes.UploadUrl(request, id);
        response.Headers.Location = location;
        if (hasBody)
        {
            if (!locks.TryEnter(id, out var held))
            {
                throw Locked();
            }

            using (held)
            {
                try
                {
                    upload = await AppendAsync(context, upload, held, checksum);
                }
                catch (ProblemException refused)
                {
                    // The upload exists (at the offset before the refused chunk): say where, so the client can resume.
                    throw refused.WithHeader("Location", location);
                }
                catch (IOException full) when (OutOfSpace.Is(full))
                {
                    // Likewise when the disk filled: the bytes that fit stay, and the client resumes once space is freed.
                    throw ProblemException.StorageFull(full).WithHeader("Location", location);
                }
                catch (Exception unwritable) when (Unwritable.Is(unwritable))
                {
                    throw ProblemException.StorageUnwritable(unwritable).WithHeader("Location", location);
                }
            }
        }

        if (upload.HasAllBytes && upload.Completion is null && upload.Kind == ResumableUploadKind.Regular && locks.TryEnter(id, out var finishing))
        {
            // An empty file is complete on creation.
            using (finishing)
            {
                upload = await FinishAsync(context.Request, upload, finishing, context.RequestAborted);
            }
        }

        telemetry?.Complete(upload.Offset);
        response.StatusCode = StatusCodes.Status201Created;
        WriteState(response, upload, head: false);
    }

    /// <summary>concatenation: joins complete partial uploads, in order, into a final upload that becomes the file at once.</summary>
    private async Task CreateFinalAsync(HttpContext context, IReadOnlyList<string> partIds, string rawMetadata, Dictionary<string, string?> metadata, long? length, bool deferred)
    {
        if (length is not null || deferred)
        {
            throw TusProtocol.Problem(StatusCodes.Status400BadRequest, "Invalid concatenation",
                "A final upload's length is the sum of its parts: send neither Upload-Length nor Upload-Defer-Length.");
        }

        long total = 0;
        foreach (var partId in partIds)
        {
            var part = await store.GetAsync(partId, context.RequestAborted);
            if (part is null || part.Kind != ResumableUploadKind.Partial)
            {
                throw TusProtocol.Problem(StatusCodes.Status400BadRequest, "Invalid concatenation", $"{routes.UploadUrl(context.Request, partId)} is not a partial upload here.");
            }

            if (!part.HasAllBytes)
            {
                throw TusProtocol.Problem(StatusCodes.Status400BadRequest, "Invalid concatenation",
                    $"{routes.UploadUrl(context.Request, partId)} is not complete ({part.Offset} of {part.Length?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "?"} bytes); finish every part first.");
            }

            total += part.Length!.Value;
        }

        if (total > maxUploadBytes)
        {
            throw TooLarge();
        }

        var id = ResumableUploadId.New();
        var now = time.GetUtcNow();
        var upload = new ResumableUpload
        {
            Id = id,
            Length = total,
            Metadata = rawMetadata.Length == 0 ? null : rawMetadata,
            Kind = ResumableUploadKind.Final,
            Parts = partIds,
            TargetKey = TargetKey(metadata, id).Value,
            CreatedAt = now,
            LastActivityAt = now,
            Client = TusQuota.ClientOf(context),
        };
        // Gathering writes the parts' bytes once more before they are removed: the total must fit.
        await CreateCountedAsync(upload, limitClient: false, context.RequestAborted);
        if (!locks.TryEnter(id, out var held))
        {
            throw Locked();
        }

        using (held)
        {
            upload = await FinishAsync(context.Request, upload, held, context.RequestAborted);
        }

        context.Response.StatusCode = StatusCodes.Status201Created;
        context.Response.Headers.Location = routes.UploadUrl(context.Request, id);
        WriteState(context.Response, upload, head: false);
    }

    /// <summary>Creates the upload in the store once the quotas admit it (429 / 507 otherwise: nothing created).</summary>
    private async ValueTask CreateCountedAsync(ResumableUpload upload, bool limitClient, CancellationToken cancellationToken)
    {
        // Right after a start, the uploads from before it are counted first (the sweep that runs at once).
        await quota.Counted.WaitAsync(cancellationToken);
        quota.Admit(upload, limitClient);
        try
        {
            await store.CreateAsync(upload, cancellationToken);
        }
        catch
        {
            quota.Forget(upload.Id);
            throw;
        }

        quota.Stored(upload);
    }

    public async Task HeadAsync(HttpContext context)
    {
        if (access.Refuses(context, write: true))
        {
            return;
        }

        // The offset once it settled: a PATCH still writing (its client gone, or a proxy still delivering what it
        // had buffered) is taken over, so the client resumes from an offset that does not move on under it.
        using var held = await TakeOverAsync(context);
        var upload = await FindAsync(context);
        if (upload.HasAllBytes && upload.Completion is null && upload.Kind != ResumableUploadKind.Partial)
        {
            // Every byte arrived but the file was not made (a crash, a failed move): make it now.
            upload = await FinishAsync(context.Request, upload, held, context.RequestAborted);
        }

        context.Response.Headers.CacheControl = "no-store";
        WriteState(context.Response, upload, head: true);
        context.Response.StatusCode = StatusCodes.Status200OK;
    }

    public async Task PatchAsync(HttpContext context)
    {
        var request = context.Request;
        if (access.Refuses(context, write: true, FreightTelemetry.Tus))
        {
            return;
        }

        var telemetry = UploadTelemetry.Start(context, FreightTelemetry.Tus, UploadId(context));
        if (!IsOffsetStream(request))
        {
            throw TusProtocol.Problem(StatusCodes.Status415UnsupportedMediaType, "Wrong content type", $"A PATCH must send Content-Type: {TusProtocol.OffsetContentType}.");
        }

        var offset = TusProtocol.Size(request, TusProtocol.OffsetHeader)
            ?? throw TusProtocol.Problem(StatusCodes.Status400BadRequest, "Offset missing", "A PATCH must send Upload-Offset: where its bytes go.");
        var declaredLength = TusProtocol.Size(request, TusProtocol.LengthHeader);
        using var checksum = TusProtocol.Checksum(request);
        // The lock first, then the one read of the upload: a request that held the lock may have moved it on.
        ResumableUpload upload;
        bool finished;
        using (var held = await TakeOverAsync(context))
        {
            upload = await FindAsync(context);
            if (upload.Kind == ResumableUploadKind.Final)
            {
                throw TusProtocol.Problem(StatusCodes.Status403Forbidden, "Final upload", "A final upload is made of its parts; it takes no PATCH.");
            }

            if (offset != upload.Offset)
            {
                throw TusProtocol.Problem(StatusCodes.Status409Conflict, "Offset mismatch",
                    $"The upload holds {upload.Offset} bytes; a PATCH must start there, not at {offset}. HEAD tells the current offset.");
            }

            if (declaredLength is { } declared)
            {
                upload = await DeclareLengthAsync(upload, declared, context.RequestAborted);
            }

            finished = upload.Completion is not null;
            if (!finished)
            {
                upload = await AppendAsync(context, upload, held, checksum);
            }
        }

        // A finished upload takes no more bytes. Whether the body brings any is awaited without holding the upload:
        // a chunked body may be slow to tell, and requests that take the upload over would wait for it.
        if (finished && await BodyHasBytesAsync(request))
        {
            throw ExceedsLength(upload);
        }

        telemetry.Complete(upload.Offset - offset);
        context.Response.StatusCode = StatusCodes.Status204NoContent;
        WriteState(context.Response, upload, head: false);
    }

    public async Task DeleteAsync(HttpContext context)
    {
        if (access.Refuses(context, write: true))
        {
            return;
        }

        var upload = await FindAsync(context, allowExpired: true);
        // A PATCH still writing (its client aborted it to terminate, or is gone) is taken over, not waited out.
        using var held = await TakeOverAsync(context);
        await RemoveAsync(upload, context.RequestAborted);
        context.Response.StatusCode = StatusCodes.Status204NoContent;
    }

    /// <summary>Removes an upload (the expiry sweep too): its record, bytes and running digests; a file it became stays.</summary>
    public async ValueTask RemoveAsync(ResumableUpload upload, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(upload);
        await store.DeleteAsync(upload.Id, cancellationToken);
        runningDigests.Forget(upload.Id);
        quota.Forget(upload.Id);
    }

    /// <summary>An unfinished upload whose last byte arrived longer than <see cref="TusOptions.ExpireAfter"/> ago; a finished one's record after as long.</summary>
    public bool IsExpired(ResumableUpload upload, DateTimeOffset now)
    {
        ArgumentNullException.ThrowIfNull(upload);
        return now >= upload.LastActivityAt + options.ExpireAfter;
    }

    public bool IsBusy(string id) => locks.IsHeld(id);

    /// <summary>
    /// The upload's lock, taken over from the request that holds it (<see cref="ResumableUploadLocks.TakeOverAsync"/>):
    /// a PATCH stops reading at its next chunk and answers <see cref="TakenOver"/>; one finishing the upload is waited for.
    /// 423 when it is not let go in time.
    /// </summary>
    private async ValueTask<ResumableUploadLocks.Holder> TakeOverAsync(HttpContext context) =>
        await locks.TakeOverAsync(UploadId(context), s_takeOverPatience, context.RequestAborted) ?? throw Locked();

    /// <summary>The route's upload id as sent (validated where it is looked up).</summary>
    private static string UploadId(HttpContext context) => context.Request.RouteValues["id"] as string ?? "";

    private async ValueTask<ResumableUpload> FindAsync(HttpContext context, bool allowExpired = false)
    {
        var id = UploadId(context);
        var upload = ResumableUploadId.IsValid(id) ? await store.GetAsync(id, context.RequestAborted) : null;
        if (upload is null)
        {
            throw TusProtocol.Problem(StatusCodes.Status404NotFound, "Unknown upload", $"There is no upload '{id}' (never created, terminated, or expired and removed).");
        }

        if (!allowExpired && upload.Completion is null && IsExpired(upload, time.GetUtcNow()))
        {
            throw TusProtocol.Problem(StatusCodes.Status410Gone, "Upload expired",
                $"The upload expired at {TusProtocol.FormatDate(upload.LastActivityAt + options.ExpireAfter)}; its bytes are being removed. Start a new upload.");
        }

        return upload;
    }

    private async ValueTask<ResumableUpload> DeclareLengthAsync(ResumableUpload upload, long declared, CancellationToken cancellationToken)
    {
        if (upload.Length is { } known)
        {
            return known == declared
                ? upload
                : throw TusProtocol.Problem(StatusCodes.Status400BadRequest, "Length already set", $"The upload's length is {known}; it cannot change to {declared}.");
        }

        if (declared < upload.Offset)
        {
            throw TusProtocol.Problem(StatusCodes.Status400BadRequest, "Length too short", $"The upload already holds {upload.Offset} bytes, more than the {declared} declared.");
        }

        if (declared > maxUploadBytes)
        {
            throw TooLarge();
        }

        upload = upload with { Length = declared };
        quota.Declare(upload);
        await store.UpdateAsync(upload, cancellationToken);
        quota.Stored(upload);
        return upload;
    }

    /// <summary>
    /// Streams the request body to the upload's end (the caller holds its lock, <paramref name="held"/>). Bytes that
    /// arrived stay when the request is cut off or taken over by another request for the upload, unless the chunk
    /// carries a checksum: then the chunk is all or nothing. The running digests follow exactly the stored bytes.
    /// Completes the upload when its last byte arrived.
    /// </summary>
    private async ValueTask<ResumableUpload> AppendAsync(HttpContext context, ResumableUpload upload, ResumableUploadLocks.Holder held, TusChecksum? checksum = null)
    {
        var request = context.Request;
        var limit = upload.Length ?? maxUploadBytes;
        if (request.ContentLength is { } sent && upload.Offset + sent > limit)
        {
            throw ExceedsLength(upload);
        }

        using var slot = limiter.Enter(context);
        FilesEndpoints.LimitUpload(context, limit - upload.Offset);
        var digests = runningDigests.Take(upload.Id, upload.Offset);
        // Disposed before the upload can finish: a store may keep the last bytes until then (S3 keeps a tail).
        var appender = await BeginAppendAsync(upload, context.RequestAborted);
        var discard = false;
        var takenOver = false;
        try
        {
            // Another request asking for the upload ends the body's read at the next chunk (the followed body's own
            // cancel, told apart from Kestrel's): the bytes that came stay, as when the client is cut off.
            using (held.ReleaseRequested.UnsafeRegister(static body => ((PipeReader)body!).CancelPendingRead(), request.BodyReader))
            {
                await CopyAsync(request.BodyReader, appender, digests, checksum, limit, upload);
            }

            if (checksum is not null && !checksum.Matches())
            {
                FreightTelemetry.DigestMismatch(checksum.Name);
                throw TusProtocol.Problem(TusProtocol.ChecksumMismatchStatus, "Checksum mismatch",
                    $"The chunk's {checksum.Name} does not match Upload-Checksum; it was discarded and the upload stays at {appender.StartOffset} bytes.");
            }
        }
        catch (ProblemException)
        {
            // A chunk refused while or after streaming (past the length, checksum mismatch) is taken back whole.
            discard = true;
            throw;
        }
        catch (OperationCanceledException) when (held.ReleaseRequested.IsCancellationRequested)
        {
            // Taken over: answered below, once the bytes kept are saved and the lock can go.
            takenOver = true;
            discard = checksum is not null;
        }
        catch when (checksum is not null)
        {
            // Cut off: bytes that arrived stay — unless the chunk carries a checksum, which they cannot meet.
            discard = true;
            throw;
        }
        finally
        {
            if (discard)
            {
                await appender.DiscardAsync(CancellationToken.None);
            }

            if (digests is not null)
            {
                if (discard)
                {
                    digests.Dispose();
                }
                else
                {
                    runningDigests.Keep(upload.Id, digests);
                }
            }

            await DisposeAppenderAsync(appender);
        }

        upload = upload with { Offset = appender.Offset, LastActivityAt = time.GetUtcNow() };
        quota.Stored(upload);
        if (takenOver && !upload.HasAllBytes)
        {
            throw TakenOver(upload, appender.Offset - appender.StartOffset, checksum);
        }

        return upload.HasAllBytes && upload.Kind != ResumableUploadKind.Partial ? await FinishAsync(context.Request, upload, held, context.RequestAborted) : upload;
    }

    private static async ValueTask DisposeAppenderAsync(IResumableUploadAppender appender)
    {
        try
        {
            await appender.DisposeAsync();
        }
        catch (ResumableOffsetConflictException conflict)
        {
            // The store saves the append's end on dispose; another node's append got there first.
            throw TusProtocol.Problem(StatusCodes.Status409Conflict, "Offset mismatch", conflict.Message + " HEAD tells the current offset.");
        }
    }

    private async ValueTask<IResumableUploadAppender> BeginAppendAsync(ResumableUpload upload, CancellationToken cancellationToken)
    {
        try
        {
            return await store.BeginAppendAsync(upload.Id, upload.Offset, cancellationToken);
        }
        catch (ResumableOffsetConflictException conflict)
        {
            // Another node (or a restart) moved the upload since it was read.
            throw TusProtocol.Problem(StatusCodes.Status409Conflict, "Offset mismatch", conflict.Message + " HEAD tells the current offset.");
        }
    }

    private static async ValueTask CopyAsync(PipeReader body, IResumableUploadAppender appender, StreamingDigests? digests, TusChecksum? checksum, long limit, ResumableUpload upload)
    {
        // At least 64 KiB per write, not the 256 KiB a PUT gathers: when the connection drops, Kestrel fails
        // the read and the batch still being gathered is lost, so the batch bounds what a cut-off PATCH
        // loses of what arrived. Measured (`freight bench --suite tus --size 1073741824 --runs 3`, quiet
        // machine): any-size reads cost 0.96 s/GiB of server CPU at 16 MiB chunks, 64 KiB 0.76–0.87,
        // 256 KiB 0.77. No cancellation token: an aborted connection ends the read by itself, and
        // cancelling a pending body read races Kestrel's own ("Reading is already in progress").
        try
        {
            await UploadPipeline.CopyAsync(new PipeBodySource(body, 64 * 1024), new TusAppendSink(appender, checksum), digests,
                limit - appender.StartOffset, FreightTelemetry.Tus, CancellationToken.None);
        }
        catch (UploadTooLargeException)
        {
            throw ExceedsLength(upload);
        }
    }

    /// <summary>
    /// Makes a complete upload the file at its target key (the caller holds its lock, <paramref name="held"/>): a final
    /// upload first gathers its parts' bytes (from wherever a previous attempt stopped); the ETag comes from the running
    /// digests when they cover every byte, else from one read of the stored bytes. It cannot stop half-way, so a request
    /// that takes the upload over meanwhile waits for it (<see cref="FinishTime"/>) and answers from the finished upload.
    /// A refusal names a part by the URL <paramref name="request"/>'s client knows it by.
    /// </summary>
    private async ValueTask<ResumableUpload> FinishAsync(HttpRequest request, ResumableUpload upload, ResumableUploadLocks.Holder held, CancellationToken cancellationToken)
    {
        held.Finishing(FinishTime(upload));
        // Taken out of the cache for good: from here on nothing appends to this upload.
        var digests = runningDigests.Take(upload.Id, upload.Offset);
        if (upload.Kind == ResumableUploadKind.Final && !upload.HasAllBytes)
        {
            upload = await GatherPartsAsync(request, upload, digests, cancellationToken);
        }

        ComputedDigests computed;
        using (digests)
        {
            computed = digests is not null && digests.Length == upload.Length
                ? digests.Complete()
                : await runningDigests.ComputeAsync(store, upload.Id, cancellationToken);
        }

        var metadata = TusProtocol.Metadata(upload.Metadata);
        var contentType = metadata.TryGetValue("filetype", out var type) && MediaTypeHeaderValue.TryParse(type, out _) ? type : null;
        var commit = new ObjectCommit { ETag = computed.EntityTag, ContentType = contentType, Digests = FileUpload.Keep(computed) };
        await store.CompleteAsync(upload, upload.TargetKey!, commit, cancellationToken);
        quota.Forget(upload.Id);
        if (upload.Kind == ResumableUploadKind.Final)
        {
            // Parts served their purpose: the protocol allows removing them, and keeping them doubles the disk used.
            foreach (var partId in upload.Parts)
            {
                if (await store.GetAsync(partId, cancellationToken) is { } part)
                {
                    await RemoveAsync(part, cancellationToken);
                }
            }
        }

        return await store.GetAsync(upload.Id, cancellationToken) ?? upload;
    }

    /// <summary>
    /// How long finishing <paramref name="upload"/> may take, for the requests waiting for it: the takeover's patience,
    /// and every byte at <see cref="SlowestFinishBytesPerSecond"/> (read back and hashed, or gathered from the parts).
    /// </summary>
    private static TimeSpan FinishTime(ResumableUpload upload) =>
        s_takeOverPatience + TimeSpan.FromSeconds((upload.Length ?? upload.Offset) / SlowestFinishBytesPerSecond);

    private async ValueTask<ResumableUpload> GatherPartsAsync(HttpRequest request, ResumableUpload upload, StreamingDigests? digests, CancellationToken cancellationToken)
    {
        await using var appender = await BeginAppendAsync(upload, cancellationToken);
        var buffer = ArrayPool<byte>.Shared.Rent(1024 * 1024);
        try
        {
            long partStart = 0;
            foreach (var partId in upload.Parts)
            {
                var part = await store.GetAsync(partId, cancellationToken)
                    ?? throw TusProtocol.Problem(StatusCodes.Status409Conflict, "Part gone", $"{routes.UploadUrl(request, partId)} was removed before the final upload was made.");
                var partEnd = partStart + part.Offset;
                for (var position = Math.Max(appender.Offset, partStart); position < partEnd;)
                {
                    var read = await store.ReadAsync(partId, position - partStart, buffer.AsMemory(0, (int)Math.Min(buffer.Length, partEnd - position)), cancellationToken);
                    if (read == 0)
                    {
                        throw new IOException($"{routes.Tus}/{partId} ended early.");
                    }

                    var chunk = new ReadOnlySequence<byte>(buffer, 0, read);
                    await appender.WriteAsync(chunk, cancellationToken);
                    digests?.Append(chunk);
                    position += read;
                }

                partStart = partEnd;
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }

        return upload with { Offset = appender.Offset };
    }

    private void WriteState(HttpResponse response, ResumableUpload upload, bool head)
    {
        var headers = response.Headers;
        headers[TusProtocol.OffsetHeader] = upload.Offset.ToString(System.Globalization.CultureInfo.InvariantCulture);
        if (upload.Completion is null)
        {
            headers[TusProtocol.ExpiresHeader] = TusProtocol.FormatDate(upload.LastActivityAt + options.ExpireAfter);
        }
        else
        {
            // Where the finished upload is now (not part of tus; clients that know Freight can fetch it).
            if (routes.FileUrl(response.HttpContext.Request, upload.Completion.Key) is { } file)
            {
                headers.ContentLocation = file;
            }
        }

        if (!head)
        {
            return;
        }

        if (upload.Length is { } length)
        {
            headers[TusProtocol.LengthHeader] = length.ToString(System.Globalization.CultureInfo.InvariantCulture);
        }
        else
        {
            headers[TusProtocol.DeferLengthHeader] = "1";
        }

        if (upload.Metadata is not null)
        {
            headers[TusProtocol.MetadataHeader] = upload.Metadata;
        }

        if (upload.Kind == ResumableUploadKind.Partial)
        {
            headers[TusProtocol.ConcatHeader] = "partial";
        }
        else if (upload.Kind == ResumableUploadKind.Final)
        {
            headers[TusProtocol.ConcatHeader] = "final;" + string.Join(' ', upload.Parts.Select(part => routes.UploadUrl(response.HttpContext.Request, part)));
        }
    }

    /// <summary>The files-store key a finished upload takes: the prefix, then the filename the client gave, else the id.</summary>
    private StorageKey TargetKey(Dictionary<string, string?> metadata, string id)
    {
        var name = metadata.TryGetValue("filename", out var filename) && !string.IsNullOrEmpty(filename) ? filename : id;
        return _prefix.TryAppend(name, out var key, out var error)
            ? key
            : throw TusProtocol.Problem(StatusCodes.Status400BadRequest, "Invalid file name", $"Upload-Metadata filename '{name}': {error}");
    }

    private static bool IsOffsetStream(HttpRequest request) =>
        MediaTypeHeaderValue.TryParse(request.ContentType, out var type) && type.MediaType.Equals(TusProtocol.OffsetContentType, StringComparison.OrdinalIgnoreCase);

    /// <summary>Whether the request may carry a body: a Content-Length above 0, chunked HTTP/1.1, or an HTTP/2 stream left open.</summary>
    private static bool HasBody(HttpContext context) =>
        context.Request.ContentLength > 0
        || (context.Request.ContentLength is null && context.Features.Get<Microsoft.AspNetCore.Http.Features.IHttpRequestBodyDetectionFeature>()?.CanHaveBody == true);

    /// <summary>Whether at least one body byte comes (reads, consumes nothing): a known length says so at once.</summary>
    private static async ValueTask<bool> BodyHasBytesAsync(HttpRequest request)
    {
        if (request.ContentLength is { } length)
        {
            return length > 0;
        }

        var result = await request.BodyReader.ReadAsync();
        var any = !result.Buffer.IsEmpty;
        request.BodyReader.AdvanceTo(result.Buffer.Start);
        return any;
    }

    private ProblemException TooLarge() =>
        TusProtocol.Problem(StatusCodes.Status413PayloadTooLarge, "Upload too large", $"An upload may hold at most {maxUploadBytes} bytes (Tus-Max-Size).",
            new Dictionary<string, string> { [TusProtocol.MaxSizeHeader] = maxUploadBytes.ToString(System.Globalization.CultureInfo.InvariantCulture) });

    private static ProblemException ExceedsLength(ResumableUpload upload) =>
        TusProtocol.Problem(StatusCodes.Status413PayloadTooLarge, "Chunk exceeds the upload",
            upload.Length is { } length
                ? $"The upload is {length} bytes and holds {upload.Offset}; the chunk would go past its end and was discarded."
                : "The chunk would pass the largest upload allowed; it was discarded.");

    /// <summary>
    /// The answer to a PATCH (or a creation's body) that another request took over. 423, as to a request that finds
    /// the upload busy, with Retry-After: its client may still be there (a HEAD of its own while the PATCH streamed,
    /// a second tab resuming the same file), and a tus client retries 423 from HEAD's offset, where tusd's 400 ends
    /// its upload. Upload-Offset says where the upload stood when this request let go.
    /// </summary>
    private static ProblemException TakenOver(ResumableUpload upload, long kept, TusChecksum? checksum) =>
        TusProtocol.Problem(StatusCodes.Status423Locked, "Upload taken over",
            (checksum is null
                ? $"Another request for this upload took it over, so this request stopped reading its body; the {kept} bytes it had stored are kept"
                : $"Another request for this upload took it over, so this request stopped reading its body; its chunk was discarded (Upload-Checksum covers the whole chunk)")
            + $" and the upload holds {upload.Offset} bytes. HEAD tells where to continue.",
            new Dictionary<string, string>
            {
                [TusProtocol.OffsetHeader] = upload.Offset.ToString(System.Globalization.CultureInfo.InvariantCulture),
                ["Retry-After"] = "1",
            });

    private static ProblemException Locked() =>
        TusProtocol.Problem(StatusCodes.Status423Locked, "Upload busy",
            $"Another request is using this upload and did not let go of it in time ({s_takeOverPatience.TotalSeconds:0} s, or as long as finishing the upload may take); retry when it ends.",
            new Dictionary<string, string> { ["Retry-After"] = "1" });
}
