using System.Buffers;
using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Http.Headers;
using Freight.Bench.Reports;
using Freight.Digests;

namespace Freight.Bench.Client;

/// <summary>
/// <c>freight get URL FILE</c>: downloads into FILE.partial (resuming one a previous get left), checks the
/// whole file's SHA-256 against the server's Repr-Digest, and renames it to FILE. Exit 0 saved, 1 failed, 2 usage.
/// </summary>
public static class GetCommand
{
    /// <summary>Parses <paramref name="args"/> (what follows <c>freight get</c>, see <see cref="ClientCommand"/>) and downloads.</summary>
    public static Task<int> RunAsync(IReadOnlyList<string> args, TextWriter output, TextWriter error, bool errorIsTerminal, CancellationToken cancellationToken = default) =>
        ClientCommand.RunAsync(TransferVerb.Get, args, output, error, errorIsTerminal, cancellationToken);

    /// <summary>Downloads with options already parsed and checked (FILE's directory exists).</summary>
    internal static async Task<int> TransferAsync(ClientOptions options, TextWriter output, TextWriter error, bool interactive, CancellationToken cancellationToken)
    {
        var partial = new PartialDownload(options.File);
        using var http = ClientHttp.Create(options.CertificateSha256, followRedirects: true);
        try
        {
            return await DownloadAsync(http, options, partial, output, error, interactive, cancellationToken);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            await error.WriteLineAsync("interrupted.");
        }
        catch (HttpRequestException failed)
        {
            await error.WriteLineAsync($"error: {options.Url}: {PutCommand.Reason(failed, options)}");
        }
        catch (Exception failed) when (failed is IOException or UnauthorizedAccessException)
        {
            await error.WriteLineAsync($"error: {failed.Message}");
        }

        await TellWhatIsKeptAsync(partial, error);
        return 1;
    }

    /// <summary>Performs the get once the options are valid; exceptions are the caller's (they keep FILE.partial).</summary>
    internal static async Task<int> DownloadAsync(
        HttpClient http, ClientOptions options, PartialDownload partial, TextWriter output, TextWriter error, bool interactive, CancellationToken cancellationToken)
    {
        var resuming = partial.TryGetResumePoint(out var offset, out var etag);
        while (true)
        {
            using var request = ClientHttp.Request(HttpMethod.Get, options.Url, options.Token);
            // RFC 9530 §4: ask for the digest of the whole representation, which a 206 carries too.
            request.Headers.TryAddWithoutValidation(WantDigest.WantReprDigestHeader, "sha-256=1");
            if (resuming)
            {
                // RFC 9110 §13.1.5: the rest if FILE.partial is still a prefix of the current representation, else all of it.
                request.Headers.Range = new RangeHeaderValue(offset, null);
                request.Headers.IfRange = new RangeConditionHeaderValue(etag!);
            }

            var clock = Stopwatch.StartNew();
            using var response = await http.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, cancellationToken);
            switch (response.StatusCode)
            {
                case HttpStatusCode.RequestedRangeNotSatisfiable when resuming:
                    // FILE.partial is as long as the file or longer (it shrank): nothing to resume.
                    await error.WriteLineAsync($"note: {options.Url} has no bytes from {offset} on (416): starting over.");
                    resuming = false;
                    offset = 0;
                    continue;
                case HttpStatusCode.PartialContent when resuming:
                    if (!IsRestOf(response, offset, etag!, out var why))
                    {
                        await error.WriteLineAsync($"error: {options.Url}: {why}; {partial.PartialPath} is left as it was.");
                        return 1;
                    }

                    return await ReceiveAsync(response, offset, clock, options, partial, output, error, interactive, cancellationToken);
                case HttpStatusCode.OK:
                    if (resuming)
                    {
                        await error.WriteLineAsync($"note: {options.Url} changed since {partial.PartialPath} was begun (If-Range did not match): starting over.");
                    }

                    return await ReceiveAsync(response, 0, clock, options, partial, output, error, interactive, cancellationToken);
                default:
                    await error.WriteLineAsync($"error: {options.Url}: {await ProblemText.DescribeAsync(response, options.Token is not null, cancellationToken)}");
                    return 1;
            }
        }
    }

    /// <summary>
    /// Whether a 206 is the rest we asked for: one range from <paramref name="offset"/> to the last byte
    /// (RFC 9110 §14.4), of the representation <paramref name="etag"/> names.
    /// </summary>
    internal static bool IsRestOf(HttpResponseMessage response, long offset, EntityTagHeaderValue etag, out string? why)
    {
        why = null;
        var range = response.Content.Headers.ContentRange;
        if (range is not { From: { } from, To: { } to, Length: { } length } || range.Unit != "bytes" || from != offset || to != length - 1)
        {
            why = string.Create(CultureInfo.InvariantCulture, $"asked for bytes={offset}- but the 206 has Content-Range: {range?.ToString() ?? "(none)"}");
            return false;
        }

        if (response.Headers.ETag is { } sent && !sent.Equals(etag))
        {
            why = $"asked If-Range: {etag} but the 206 is of ETag {sent}";
            return false;
        }

        return true;
    }

    private static async Task<int> ReceiveAsync(
        HttpResponseMessage response, long offset, Stopwatch clock, ClientOptions options, PartialDownload partial, TextWriter output, TextWriter error, bool interactive, CancellationToken cancellationToken)
    {
        var field = ReprDigestCheck.Field(response);
        long? total = offset > 0 ? response.Content.Headers.ContentRange!.Length : response.Content.Headers.ContentLength;
        using var digests = new StreamingDigests(ReprDigestCheck.AlgorithmsFor(field));
        long received;
        await using (var file = partial.Open())
        {
            if (offset > 0)
            {
                if (file.Length != offset)
                {
                    throw new IOException($"{partial.PartialPath} changed size ({offset} → {file.Length} bytes) while this get started.");
                }

                // The digest covers the whole file, so the bytes kept from before are hashed too.
                clock.Stop();
                var hashing = new TransferProgress(error, interactive, "hashing", offset);
                try
                {
                    await FileHasher.AppendAsync(file, offset, digests, hashing, cancellationToken);
                }
                finally
                {
                    hashing.Clear();
                }

                clock.Start();
            }
            else
            {
                // Empty the file before naming the new ETag: a crash in between leaves nothing to resume, never a mix.
                file.SetLength(0);
                partial.RememberETag(response.Headers.ETag);
            }

            var progress = new TransferProgress(error, interactive, "get", total, offset);
            try
            {
                received = await CopyAsync(response, file, digests, progress, cancellationToken);
            }
            finally
            {
                progress.Clear();
            }
        }

        var seconds = clock.Elapsed.TotalSeconds;
        if (total is { } expected && offset + received != expected)
        {
            throw new IOException(string.Create(CultureInfo.InvariantCulture, $"{options.Url} ended after {offset + received} of {expected} bytes."));
        }

        var verdict = ReprDigestCheck.Check(field, digests.Complete(), out var detail);
        if (verdict is DigestVerdict.Mismatch or DigestVerdict.Malformed)
        {
            partial.Discard();
            await error.WriteLineAsync($"error: {options.Url}: {detail}; {partial.PartialPath} deleted.");
            return 1;
        }

        partial.Complete();
        var checkedText = "sha-256 verified";
        if (verdict == DigestVerdict.Absent)
        {
            checkedText = "sha-256 not verified";
            await error.WriteLineAsync($"note: {options.Url} sent no sha-256 Repr-Digest: {options.File} is saved unverified.");
        }

        var resumed = offset > 0 ? string.Create(CultureInfo.InvariantCulture, $", resumed at byte {offset}") : "";
        var etagText = response.Headers.ETag?.ToString() ?? "-";
        await output.WriteLineAsync($"saved: {options.File} etag={etagText} {checkedText}, {TransferUnits.Summary(received, seconds)}{resumed}");
        return 0;
    }

    private static async Task<long> CopyAsync(HttpResponseMessage response, FileStream file, StreamingDigests digests, TransferProgress progress, CancellationToken cancellationToken)
    {
        var buffer = ArrayPool<byte>.Shared.Rent(FileHasher.BufferBytes);
        try
        {
            await using var body = await response.Content.ReadAsStreamAsync(cancellationToken);
            long received = 0;
            int read;
            while ((read = await body.ReadAsync(buffer.AsMemory(0, FileHasher.BufferBytes), cancellationToken)) > 0)
            {
                digests.Append(buffer.AsSpan(0, read));
                await file.WriteAsync(buffer.AsMemory(0, read), cancellationToken);
                received += read;
                progress.Advance(read);
            }

            return received;
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    private static async Task TellWhatIsKeptAsync(PartialDownload partial, TextWriter error)
    {
        if (!File.Exists(partial.PartialPath))
        {
            return;
        }

        var length = new FileInfo(partial.PartialPath).Length;
        await error.WriteLineAsync(partial.CanResume
            ? string.Create(CultureInfo.InvariantCulture, $"kept: {partial.PartialPath} ({CountText.Format(length, "byte")}); run the same get to resume.")
            : $"kept: {partial.PartialPath}, but the server gave no strong ETag: the next get starts over.");
    }
}
