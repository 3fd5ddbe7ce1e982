using System.Collections.Concurrent;
using System.Diagnostics;
using System.IO.Hashing;
using Freight.Bench.Reports;
using Freight.Bench.Suites.Json;
using Freight.Lab.Json;

namespace Freight.Bench.Load;

/// <summary>One JSON response, timed: body bytes, total seconds, seconds to the first body byte.</summary>
public readonly record struct JsonOutcome(long Bytes, double Seconds, double TimeToFirstByteSeconds);

/// <summary>
/// Fetches and verifies JSON lab responses. Every response is verified: its raw bytes are hashed as they
/// arrive (XXH3-128, ~40 GB/s); a body not seen before is parsed into records, counted, and its canonical
/// form hashed against the generator's (<see cref="LabJsonDigest"/>); a body byte-identical to one already
/// verified needs no second parse. Parsing happens after the response's clock stops.
/// </summary>
public sealed class JsonResponseClient(HttpClients clients, BenchTarget target)
{
    private readonly ConcurrentDictionary<int, Lazy<string>> _expected = new();
    private readonly ConcurrentDictionary<UInt128, bool> _verifiedBodies = new();

    /// <summary>Fetches one response into <paramref name="body"/> (reused between calls) and verifies it.</summary>
    public async Task<JsonOutcome> GetAsync(JsonScenario scenario, MemoryStream body, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(scenario);
        ArgumentNullException.ThrowIfNull(body);
        body.SetLength(0);
        var uri = new Uri(target.Http ?? target.Https!, $"/lab/{scenario.Id}?records={scenario.Records}");
        var hasher = new XxHash128();
        var clock = Stopwatch.StartNew();
        using var request = HttpClients.Request(HttpMethod.Get, uri, "http/1.1");
        using var response = await clients.Client.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, cancellationToken);
        if (!response.IsSuccessStatusCode)
        {
            throw new VerificationException($"{uri}: {(int)response.StatusCode} {await response.Content.ReadAsStringAsync(cancellationToken)}");
        }

        await using var stream = await response.Content.ReadAsStreamAsync(cancellationToken);
        var buffer = System.Buffers.ArrayPool<byte>.Shared.Rent(64 * 1024);
        double? firstByte = null;
        try
        {
            int read;
            while ((read = await stream.ReadAsync(buffer, cancellationToken)) > 0)
            {
                firstByte ??= clock.Elapsed.TotalSeconds;
                hasher.Append(buffer.AsSpan(0, read));
                body.Write(buffer, 0, read);
            }
        }
        finally
        {
            System.Buffers.ArrayPool<byte>.Shared.Return(buffer);
        }

        var seconds = clock.Elapsed.TotalSeconds;
        await VerifyAsync(scenario, hasher.GetCurrentHashAsUInt128(), body, cancellationToken);
        return new JsonOutcome(body.Length, seconds, firstByte ?? seconds);
    }

    private async Task VerifyAsync(JsonScenario scenario, UInt128 rawHash, MemoryStream body, CancellationToken cancellationToken)
    {
        if (_verifiedBodies.ContainsKey(rawHash))
        {
            return;
        }

        body.Position = 0;
        (int Records, string Hash) parsed;
        try
        {
            parsed = await LabJsonDigest.OfResponseAsync(body, cancellationToken);
        }
        catch (System.Text.Json.JsonException invalid)
        {
            throw new VerificationException($"{scenario.Id}: the response is not the expected JSON: {invalid.Message}");
        }

        var expected = _expected.GetOrAdd(scenario.Records, count => new Lazy<string>(() => LabJsonDigest.Expected(count))).Value;
        if (parsed.Records != scenario.Records || parsed.Hash != expected)
        {
            throw new VerificationException($"{scenario.Id}: expected {CountText.Format(scenario.Records, "record")} with canonical XXH3-128 {expected}, got {parsed.Records} with {parsed.Hash}.");
        }

        _verifiedBodies.TryAdd(rawHash, true);
    }
}
