using System.Buffers;
using System.Diagnostics;
using System.IO.Hashing;
using System.Net.Http.Headers;
using System.Net.Http.Json;
using Freight.Bench.Peers;
using Freight.Bench.Suites.Transfer;
using Freight.Hashing;

namespace Freight.Bench.Load;

/// <summary>
/// Performs one transfer of a scenario against the lab and verifies it byte-exact; with <paramref name="nginx"/>,
/// against nginx's payload file (GET) and WebDAV (PUT, the stored file hashed after the timed request).
/// </summary>
public sealed class TransferClient(HttpClients clients, BenchTarget target, ClientPayload payload, NginxTlsPeer? nginx = null)
{
    public async Task<TransferOutcome> RunAsync(TransferScenario scenario, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(scenario);
        return scenario.Direction switch
        {
            TransferDirection.Download => await DownloadAsync(scenario, cancellationToken),
            TransferDirection.Upload => await UploadAsync(scenario, cancellationToken),
            _ => throw new ArgumentException($"{scenario.Id} is not an HTTP transfer.", nameof(scenario)),
        };
    }

    private async Task<TransferOutcome> DownloadAsync(TransferScenario scenario, CancellationToken cancellationToken)
    {
        var uri = nginx?.DownloadAddress ?? new Uri(target.BaseFor(scenario.Scheme), $"/lab/{scenario.Id}?size={payload.Length}");
        var hasher = new XxHash128();
        long received = 0;
        var buffer = ArrayPool<byte>.Shared.Rent(scenario.ClientBufferBytes);
        try
        {
            var clock = Stopwatch.StartNew();
            using var request = HttpClients.Request(HttpMethod.Get, uri, scenario.Protocol);
            // Headers first, then the body as it streams: study 1's client buffered the whole body before timing the read.
            using var response = await clients.Client.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, cancellationToken);
            await EnsureSuccessAsync(response, cancellationToken);
            await using var body = await response.Content.ReadAsStreamAsync(cancellationToken);
            double? firstByte = null;
            int read;
            while ((read = await body.ReadAsync(buffer.AsMemory(0, scenario.ClientBufferBytes), cancellationToken)) > 0)
            {
                firstByte ??= clock.Elapsed.TotalSeconds;
                hasher.Append(buffer.AsSpan(0, read));
                received += read;
            }

            var seconds = clock.Elapsed.TotalSeconds;
            Verify(scenario, received, HashHex.ToHex(hasher.GetCurrentHashAsUInt128()));
            if (response.Content.Headers.ContentLength is { } declared && declared != received)
            {
                throw new VerificationException($"{scenario.Id}: Content-Length {declared} but {received} bytes arrived.");
            }

            return new TransferOutcome(received, seconds, firstByte ?? seconds);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    private async Task<TransferOutcome> UploadAsync(TransferScenario scenario, CancellationToken cancellationToken)
    {
        if (nginx is not null)
        {
            return await UploadToNginxAsync(scenario, nginx, cancellationToken);
        }

        var uri = new Uri(target.BaseFor(scenario.Scheme), $"/lab/{scenario.Id}?sink={scenario.Sink}");
        await using var source = OpenSource(scenario);
        using var request = HttpClients.Request(HttpMethod.Post, uri, scenario.Protocol);
        request.Content = CreateContent(scenario, source);
        var clock = Stopwatch.StartNew();
        using var response = await clients.Client.SendAsync(request, HttpCompletionOption.ResponseContentRead, cancellationToken);
        var seconds = clock.Elapsed.TotalSeconds;
        await EnsureSuccessAsync(response, cancellationToken);
        var answer = await response.Content.ReadFromJsonAsync<UploadAnswer>(cancellationToken)
            ?? throw new VerificationException($"{scenario.Id}: empty answer.");
        Verify(scenario, answer.Bytes, answer.Hash);
        return new TransferOutcome(answer.Bytes, seconds, null);
    }

    /// <summary>A WebDAV PUT of the payload (201, or 204 when it replaced the last one), verified from the stored file.</summary>
    private async Task<TransferOutcome> UploadToNginxAsync(TransferScenario scenario, NginxTlsPeer peer, CancellationToken cancellationToken)
    {
        await using var source = OpenSource(scenario);
        using var request = HttpClients.Request(HttpMethod.Put, peer.UploadAddress, scenario.Protocol);
        request.Content = CreateContent(scenario, source);
        var clock = Stopwatch.StartNew();
        using var response = await clients.Client.SendAsync(request, HttpCompletionOption.ResponseContentRead, cancellationToken);
        var seconds = clock.Elapsed.TotalSeconds;
        await EnsureSuccessAsync(response, cancellationToken);
        await peer.VerifyUploadAsync(payload, cancellationToken);
        return new TransferOutcome(payload.Length, seconds, null);
    }

    private Stream OpenSource(TransferScenario scenario)
    {
        Stream stream = scenario.Source == "file"
            // bufferSize 0: no FileStream buffer, so the client buffer alone sets the read size, as in the study.
            ? new FileStream(payload.FilePath, FileMode.Open, FileAccess.Read, FileShare.Read, bufferSize: 0, useAsync: true)
            : new MemoryStream(payload.Bytes, writable: false);
        return scenario.ChunkedBody ? new UnknownLengthStream(stream) : stream;
    }

    private static HttpContent CreateContent(TransferScenario scenario, Stream source)
    {
        var file = new StreamContent(source, scenario.ClientBufferBytes);
        file.Headers.ContentType = new MediaTypeHeaderValue("application/octet-stream");
        if (!scenario.IsMultipart)
        {
            // A source of unknown length (UnknownLengthStream) makes HttpClient send chunked on HTTP/1.1.
            return file;
        }

        // The study's form: { IFormFile File; int SomeValue }.
        var form = new MultipartFormDataContent($"freight-{Guid.NewGuid():N}")
        {
            { new StringContent("42"), "SomeValue" },
            { file, "File", "payload.bin" },
        };
        return form;
    }

    private void Verify(TransferScenario scenario, long bytes, string hash)
    {
        if (bytes != payload.Length || !string.Equals(hash, payload.Hash, StringComparison.Ordinal))
        {
            throw new VerificationException($"{scenario.Id} ({scenario.Describe()}): expected {payload.Length} bytes with XXH3-128 {payload.Hash}, got {bytes} bytes with {hash}.");
        }
    }

    /// <summary>A non-success answer fails the transfer, naming the request and what the server said.</summary>
    internal static async Task EnsureSuccessAsync(HttpResponseMessage response, CancellationToken cancellationToken)
    {
        if (!response.IsSuccessStatusCode)
        {
            var body = await response.Content.ReadAsStringAsync(cancellationToken);
            throw new VerificationException($"{response.RequestMessage?.Method} {response.RequestMessage?.RequestUri}: {(int)response.StatusCode} {body}");
        }
    }

    private sealed record UploadAnswer(long Bytes, string Hash);
}
