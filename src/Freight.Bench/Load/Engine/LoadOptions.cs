using System.Net;

namespace Freight.Bench.Load.Engine;

/// <summary>
/// One load run. Closed loop by default (<see cref="Connections"/> workers, or a ramp when
/// <see cref="RampTo"/> is set); open loop when <see cref="RatePerSecond"/> is set. At least one of
/// <see cref="Duration"/> and <see cref="MaxRequests"/> bounds the run; the first reached ends it.
/// </summary>
public sealed record LoadOptions
{
    /// <summary>The full request URI every request is sent to.</summary>
    public required Uri Target { get; init; }

    /// <summary>GET (the default), HEAD, PUT, POST or PATCH.</summary>
    public HttpMethod Method { get; init; } = HttpMethod.Get;

    /// <summary>
    /// Header fields every request carries, in order (a Content-Type here replaces the body's). Added without
    /// validation, as a user typed them; Host, Content-Length and Transfer-Encoding are the client's own.
    /// </summary>
    public IReadOnlyList<KeyValuePair<string, string>> Headers { get; init; } = [];

    /// <summary>The request body each request streams (PUT, POST, PATCH); null: none.</summary>
    public RequestBody? Body { get; init; }

    /// <summary>
    /// The SHA-256 every compared response body (see <see cref="ExpectedBody"/> for which) must have, hashed
    /// as it streams in; a body that differs counts in <see cref="LoadResult.BodyMismatches"/>. Null: no hash.
    /// </summary>
    public byte[]? ExpectedSha256 { get; init; }

    /// <summary>
    /// Checks a response's <c>Content-Digest</c>, and on a 200 without content coding its <c>Repr-Digest</c>
    /// (RFC 9530), against the body as received, when the server sends one with sha-256 or sha-512; a body
    /// that differs counts in <see cref="LoadResult.BodyMismatches"/>.
    /// </summary>
    public bool CheckDigestFields { get; init; }

    /// <summary>1.1 (keep-alive, one connection per worker) or 2.0 (one multiplexed connection; h2c over http://).</summary>
    public Version HttpVersion { get; init; } = System.Net.HttpVersion.Version11;

    /// <summary>
    /// Closed loop: the number of workers, hence of HTTP/1.1 connections. Open loop: the most HTTP/1.1
    /// connections opened; requests beyond them wait for one, and that wait is part of their latency.
    /// </summary>
    public int Connections { get; init; } = 1;

    /// <summary>Closed-loop ramp: workers at the start (set together with <see cref="RampTo"/>).</summary>
    public int? RampFrom { get; init; }

    /// <summary>Closed-loop ramp: workers after <see cref="RampSeconds"/>, held until the run ends.</summary>
    public int? RampTo { get; init; }

    /// <summary>Closed-loop ramp: seconds over which workers go linearly from <see cref="RampFrom"/> to <see cref="RampTo"/>.</summary>
    public double RampSeconds { get; init; }

    /// <summary>Open loop: request i is scheduled at start + i / rate.</summary>
    public double? RatePerSecond { get; init; }

    /// <summary>
    /// Open loop: requests in flight at most; a request scheduled while this many are outstanding is
    /// counted as dropped and not sent. 10,000 keeps a stalled server from exhausting the client's ports
    /// and memory while far exceeding any rate × latency a healthy run needs.
    /// </summary>
    public int MaxInFlight { get; init; } = 10_000;

    /// <summary>Stops issuing requests after this long and cancels those in flight (after <see cref="Drain"/>, if set).</summary>
    public TimeSpan? Duration { get; init; }

    /// <summary>
    /// After <see cref="Duration"/>, stop issuing but let requests in flight finish for up to this long,
    /// so the slowest responses of a backed-up server are measured rather than cancelled (study 3's
    /// 57-second responses were the last ones). Null: in-flight requests are cancelled at the duration.
    /// </summary>
    public TimeSpan? Drain { get; init; }

    /// <summary>Issues exactly this many requests (open loop: schedules them, dropped ones included), then waits for them.</summary>
    public long? MaxRequests { get; init; }

    /// <summary>A request not finished (body included) after this long is cancelled and counted as a timeout.</summary>
    public TimeSpan RequestTimeout { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>Called once for every second of the run, from a timer task, shortly after the second ends.</summary>
    public Action<LoadSecond>? OnSecond { get; init; }

    /// <summary>Follows the run's counters live (for a progress display), at no cost per request.</summary>
    public LoadMonitor? Monitor { get; init; }

    /// <summary>
    /// HttpClient or the lean raw HTTP/1.1 client. <see cref="LoadTransport.Auto"/> (the default) picks raw
    /// for http:// at HTTP/1.1, which spends less client CPU per request than HttpClient (on the 2-core dev
    /// machine, /lab/ping at 32 connections: about 0.8× wrk's rate against HttpClient's 0.66×), else HttpClient.
    /// <see cref="LoadTransport.RawHttp11"/> with https or HTTP/2 is rejected by <see cref="Validate"/>.
    /// </summary>
    public LoadTransport Transport { get; init; }

    /// <summary>
    /// The status every response should have; one with another status counts in
    /// <see cref="LoadResult.BadResponses"/> (and still in <see cref="LoadResult.StatusCodes"/>). Null: any status.
    /// </summary>
    public int? ExpectedStatusCode { get; init; }

    /// <summary>
    /// The exact body every response with <see cref="ExpectedStatusCode"/> (any 2xx when that is null) should
    /// carry. Each received slice is compared, as it is read, with the expected bytes at its offset, and the
    /// length must match; a response that differs counts in <see cref="LoadResult.BodyMismatches"/> and
    /// <see cref="LoadResult.BadResponses"/>. Responses with other statuses are not compared. Null: bodies are
    /// counted, not checked. The memory is read concurrently by every request and must not change during the run.
    /// Beware: a null <c>byte[]</c> converts to an empty <see cref="ReadOnlyMemory{T}"/>, not to null, and so
    /// expects empty bodies; to set it conditionally, use <c>verify ? bytes : (ReadOnlyMemory&lt;byte&gt;?)null</c>.
    /// </summary>
    public ReadOnlyMemory<byte>? ExpectedBody { get; init; }

    /// <summary>Lets a caller adjust the run's handler, e.g. to pin a TLS certificate; not used by the raw HTTP/1.1 transport.</summary>
    public Action<SocketsHttpHandler>? ConfigureHandler { get; init; }

    public LoadMode Mode => RatePerSecond is null ? LoadMode.ClosedLoop : LoadMode.OpenLoop;

    public bool IsRamp => RampTo is not null;

    /// <summary>Whether requests go through the raw HTTP/1.1 transport rather than HttpClient.</summary>
    internal bool UsesRawHttp11 => Transport switch
    {
        LoadTransport.RawHttp11 => true,
        LoadTransport.HttpClient => false,
        _ => Target.Scheme == Uri.UriSchemeHttp && HttpVersion == System.Net.HttpVersion.Version11 && RawHttp11Suffices,
    };

    /// <summary>
    /// The raw transport sends one fixed GET, or a body of one file (<c>--file</c>, sent in 64 KiB pieces) with PUT, POST
    /// or PATCH; it compares, hashes and checks digest fields as HttpClient does. HEAD, generated and multipart bodies need HttpClient.
    /// </summary>
    private bool RawHttp11Suffices => Body is null ? Method == HttpMethod.Get : Method != HttpMethod.Head && Body.SendableFile is not null;

    /// <summary>The most workers (closed loop) or connections (open loop) the run uses.</summary>
    public int ConnectionLimit => IsRamp ? Math.Max(RampFrom ?? 0, RampTo ?? 0) : Connections;

    /// <summary>Throws <see cref="ArgumentException"/> naming the first inconsistent option.</summary>
    public void Validate()
    {
        if (!Target.IsAbsoluteUri || (Target.Scheme != Uri.UriSchemeHttp && Target.Scheme != Uri.UriSchemeHttps))
        {
            throw new ArgumentException("Target must be an absolute http:// or https:// URI.", nameof(Target));
        }

        if (HttpVersion != System.Net.HttpVersion.Version11 && HttpVersion != System.Net.HttpVersion.Version20)
        {
            throw new ArgumentException("HttpVersion must be 1.1 or 2.0.", nameof(HttpVersion));
        }

        if (!Enum.IsDefined(Transport))
        {
            throw new ArgumentException("Transport must be Auto, HttpClient or RawHttp11.", nameof(Transport));
        }

        if (Transport == LoadTransport.RawHttp11
            && (Target.Scheme != Uri.UriSchemeHttp || HttpVersion != System.Net.HttpVersion.Version11))
        {
            throw new ArgumentException("The RawHttp11 transport speaks HTTP/1.1 over plain http:// only.", nameof(Transport));
        }

        if (Transport == LoadTransport.RawHttp11 && !RawHttp11Suffices)
        {
            throw new ArgumentException("The RawHttp11 transport sends GETs and file bodies only.", nameof(Transport));
        }

        if (Method != HttpMethod.Get && Method != HttpMethod.Head && Method != HttpMethod.Put
            && Method != HttpMethod.Post && Method != HttpMethod.Patch)
        {
            throw new ArgumentException("Method must be GET, HEAD, PUT, POST or PATCH.", nameof(Method));
        }

        if (Body is not null && (Method == HttpMethod.Get || Method == HttpMethod.Head))
        {
            throw new ArgumentException("GET and HEAD requests carry no body.", nameof(Body));
        }

        if (ExpectedSha256 is not null && (ExpectedSha256.Length != 32 || ExpectedBody is not null))
        {
            throw new ArgumentException("ExpectedSha256 is 32 bytes, and not set together with ExpectedBody.", nameof(ExpectedSha256));
        }

        if (Duration is null && MaxRequests is null)
        {
            throw new ArgumentException("Set Duration, MaxRequests or both, so the run always stops.", nameof(Duration));
        }

        if (Duration is { } duration && duration <= TimeSpan.Zero)
        {
            throw new ArgumentException("Duration must be positive.", nameof(Duration));
        }

        if (MaxRequests is < 1)
        {
            throw new ArgumentException("MaxRequests must be at least 1.", nameof(MaxRequests));
        }

        if (RequestTimeout <= TimeSpan.Zero)
        {
            throw new ArgumentException("RequestTimeout must be positive.", nameof(RequestTimeout));
        }

        if (RampFrom is null != RampTo is null)
        {
            throw new ArgumentException("Set RampFrom and RampTo together.", nameof(RampTo));
        }

        if (IsRamp)
        {
            if (RampFrom < 0 || RampTo < 0 || ConnectionLimit < 1 || !(RampSeconds > 0) || double.IsInfinity(RampSeconds))
            {
                throw new ArgumentException("A ramp needs RampFrom, RampTo ≥ 0 (one ≥ 1) and RampSeconds > 0.", nameof(RampSeconds));
            }

            if (RatePerSecond is not null)
            {
                throw new ArgumentException("A ramp is closed-loop; do not set RatePerSecond with it.", nameof(RatePerSecond));
            }
        }
        else if (Connections < 1)
        {
            throw new ArgumentException("Connections must be at least 1.", nameof(Connections));
        }

        if (RatePerSecond is { } rate && (!(rate > 0) || double.IsInfinity(rate)))
        {
            throw new ArgumentException("RatePerSecond must be a positive finite number.", nameof(RatePerSecond));
        }

        if (MaxInFlight < 1)
        {
            throw new ArgumentException("MaxInFlight must be at least 1.", nameof(MaxInFlight));
        }

        // A final response's status is 200–999 (three digits, RFC 9110 §15); 1xx are interim and never end a request.
        if (ExpectedStatusCode is < 200 or > 999)
        {
            throw new ArgumentException("ExpectedStatusCode must be a final status code (200–999).", nameof(ExpectedStatusCode));
        }
    }
}
