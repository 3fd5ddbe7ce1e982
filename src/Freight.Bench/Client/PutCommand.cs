using System.Diagnostics;
using System.Net;
using System.Net.Http.Headers;
using Freight.Digests;

namespace Freight.Bench.Client;

/// <summary>
/// <c>freight put FILE URL</c>: hashes FILE (SHA-256), PUTs it with Content-Length and Content-Digest, and
/// checks that the server stored those bytes (its Repr-Digest). Exit 0 stored, 1 failed, 2 usage.
/// </summary>
public static class PutCommand
{
    /// <summary>Parses <paramref name="args"/> (what follows <c>freight put</c>, see <see cref="ClientCommand"/>) and uploads.</summary>
    public static Task<int> RunAsync(IReadOnlyList<string> args, TextWriter output, TextWriter error, bool errorIsTerminal, CancellationToken cancellationToken = default) =>
        ClientCommand.RunAsync(TransferVerb.Put, args, output, error, errorIsTerminal, cancellationToken);

    /// <summary>Uploads with options already parsed and checked (FILE exists).</summary>
    internal static async Task<int> TransferAsync(ClientOptions options, TextWriter output, TextWriter error, bool interactive, CancellationToken cancellationToken)
    {
        using var http = ClientHttp.Create(options.CertificateSha256, followRedirects: false);
        try
        {
            var local = await HashAsync(options.File, error, interactive, cancellationToken);
            return await SendAsync(http, options, local, output, error, interactive, cancellationToken);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            await error.WriteLineAsync($"interrupted: {options.File} was not stored.");
            return 1;
        }
        catch (HttpRequestException failed)
        {
            await error.WriteLineAsync($"error: {options.Url}: {Reason(failed, options)}");
            return 1;
        }
        catch (Exception failed) when (failed is IOException or UnauthorizedAccessException)
        {
            await error.WriteLineAsync($"error: {failed.Message}");
            return 1;
        }
    }

    /// <summary>
    /// SHA-256 of the whole file, before anything is sent: Content-Digest is a header, so it must be known
    /// before the first body byte (trailers would avoid the second read, but few servers and proxies keep them).
    /// </summary>
    internal static async Task<ComputedDigests> HashAsync(string path, TextWriter error, bool interactive, CancellationToken cancellationToken)
    {
        await using var file = FileHasher.OpenSequential(path);
        var length = file.Length;
        var progress = new TransferProgress(error, interactive, "hashing", length);
        using var digests = new StreamingDigests([DigestAlgorithm.Sha256]);
        try
        {
            await FileHasher.AppendAsync(file, length, digests, progress, cancellationToken);
        }
        finally
        {
            progress.Clear();
        }

        return digests.Complete();
    }

    /// <summary>
    /// Sends the file's <paramref name="local"/>.Length bytes with <paramref name="local"/>'s SHA-256 as the
    /// Content-Digest, and reports the answer. The digests are a parameter so tests can send wrong ones and
    /// see the server refuse them.
    /// </summary>
    internal static async Task<int> SendAsync(
        HttpClient http, ClientOptions options, ComputedDigests local, TextWriter output, TextWriter error, bool interactive, CancellationToken cancellationToken)
    {
        var length = local.Length;
        var sha256 = local.GetDigest(DigestAlgorithm.Sha256);
        var progress = new TransferProgress(error, interactive, "put", length);
        using var request = ClientHttp.Request(HttpMethod.Put, options.Url, options.Token);
        request.Content = new FileUploadContent(options.File, length, progress);
        request.Content.Headers.ContentType = new MediaTypeHeaderValue(ContentTypes.For(options.File));
        request.Headers.TryAddWithoutValidation(DigestFields.ContentDigestHeader, DigestFields.Format(DigestAlgorithm.Sha256, sha256));
        // The server answers 401, 412 or 413 before reading the body: with 100-continue none of it is sent
        // in vain. A server that ignores it costs the handler's 1 s wait once.
        request.Headers.ExpectContinue = true;
        if (options.IfNoneMatch)
        {
            request.Headers.IfNoneMatch.Add(EntityTagHeaderValue.Any);
        }

        var clock = Stopwatch.StartNew();
        HttpResponseMessage response;
        try
        {
            response = await http.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, cancellationToken);
        }
        finally
        {
            progress.Clear();
        }

        using (response)
        {
            var seconds = clock.Elapsed.TotalSeconds;
            if (response.StatusCode is not (HttpStatusCode.Created or HttpStatusCode.NoContent or HttpStatusCode.OK))
            {
                await error.WriteLineAsync($"error: {options.Url}: {await ProblemText.DescribeAsync(response, options.Token is not null, cancellationToken)}");
                return 1;
            }

            var verdict = ReprDigestCheck.Check(ReprDigestCheck.Field(response), local, out var detail);
            switch (verdict)
            {
                case DigestVerdict.Mismatch:
                    await error.WriteLineAsync($"error: {options.Url}: the server stored other bytes than {options.File}: {detail}");
                    return 1;
                case DigestVerdict.Malformed:
                    await error.WriteLineAsync($"error: {options.Url}: {detail}");
                    return 1;
                case DigestVerdict.Absent:
                    await error.WriteLineAsync($"note: {options.Url} answered no sha-256 Repr-Digest: the stored bytes are not confirmed.");
                    break;
            }

            var etag = response.Headers.ETag?.ToString() ?? "-";
            await output.WriteLineAsync(
                $"stored: {options.Url} etag={etag} sha-256={Convert.ToHexStringLower(sha256)} {TransferUnits.Summary(length, seconds)}");
            return 0;
        }
    }

    /// <summary>Why a request failed before any answer, in words: a TLS failure says what to do about the certificate.</summary>
    internal static string Reason(HttpRequestException failed, ClientOptions options)
    {
        if (failed.InnerException is System.Security.Authentication.AuthenticationException)
        {
            return options.CertificateSha256 is null
                ? "the server's certificate is not trusted here: pin it with --certificate-sha256 HEX (freight serve prints it as certificate-sha256)"
                : "the server's certificate is not the one pinned by --certificate-sha256";
        }

        return failed.InnerException is { } inner && inner.Message != failed.Message ? $"{failed.Message} ({inner.Message})" : failed.Message;
    }
}
