using System.Diagnostics;
using System.Net;
using System.Runtime.CompilerServices;
using Freight.Bench.Results;

namespace Freight.Bench.Load.Engine;

/// <summary>
/// The state one run shares between its drivers, ticker and requests: the HttpClient or the raw HTTP/1.1
/// request and endpoint (see <see cref="LoadOptions.Transport"/>), counters,
/// histograms, the start time and the token that ends the run. <see cref="ExecuteAsync"/> is the
/// per-request hot path: no LINQ, no closures, a caller-owned buffer.
/// </summary>
internal sealed class LoadRun : IDisposable
{
    /// <summary>
    /// Body read buffer per worker (closed loop) or per request (open loop, pooled): 16 KiB holds a
    /// small response in one read and keeps 500 workers under 8 MiB.
    /// </summary>
    internal const int BodyBufferBytes = 16 * 1024;

    private readonly HttpClient _client;
    private readonly CancellationTokenSource _runEnd;
    private readonly CancellationTokenSource _issueEnd;
    private readonly Uri _target;
    private readonly Version _version;
    private readonly EndPoint? _rawEndPoint;
    private readonly RawHttp11Request? _rawRequest;
    private readonly RawHttp11ConnectionPool? _rawPool;
    private readonly ResponseExpectation? _expectation;

    // The first recorded response's latency in microseconds; −1 until one is recorded.
    private long _firstLatency = -1;

    public LoadRun(LoadOptions options, CancellationToken cancellationToken)
    {
        Options = options;
        _target = options.Target;
        _version = options.HttpVersion;
        Series = new SecondSeries(options.OnSecond);
        _runEnd = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        _issueEnd = CancellationTokenSource.CreateLinkedTokenSource(_runEnd.Token);
        _client = new HttpClient(CreateHandler(options)) { Timeout = Timeout.InfiniteTimeSpan };
        _expectation = ResponseExpectation.From(options);
        if (options.UsesRawHttp11)
        {
            _rawEndPoint = RawHttp11Connection.EndPointOf(options.Target);
            _rawRequest = RawHttp11Request.Build(options.Target, options.Method, options.Headers, options.Body);
            if (options.Mode == LoadMode.OpenLoop)
            {
                _rawPool = new RawHttp11ConnectionPool(options.ConnectionLimit, _rawEndPoint, _rawRequest, _expectation);
            }
        }
    }

    public LoadOptions Options { get; }

    public LoadCounters Counters { get; } = new();

    public LatencyHistogram Histogram { get; } = new();

    public SecondSeries Series { get; }

    public long StartTimestamp { get; private set; }

    /// <summary>The first recorded response's latency (a cold connection: connect, request, body); null before any.</summary>
    public double? FirstResponseSeconds => Volatile.Read(ref _firstLatency) is var first and >= 0 ? first * 1e-6 : null;

    /// <summary>Cancelled when the duration (plus any drain) elapses or the caller cancels: in-flight requests end.</summary>
    public CancellationToken RunEnd => _runEnd.Token;

    /// <summary>Cancelled when the duration elapses (or the run ends): no new request is issued.</summary>
    public CancellationToken IssueEnd => _issueEnd.Token;

    /// <summary>Marks the start; from here the duration counts.</summary>
    public void Start()
    {
        StartTimestamp = Stopwatch.GetTimestamp();
        if (Options.Duration is { } duration)
        {
            _issueEnd.CancelAfter(duration);
            _runEnd.CancelAfter(duration + (Options.Drain ?? TimeSpan.Zero));
        }
    }

    /// <summary>Whole seconds from the start to <paramref name="timestamp"/>.</summary>
    public int SecondOf(long timestamp) => (int)((timestamp - StartTimestamp) / Stopwatch.Frequency);

    /// <summary>A per-request token source: cancelled by the run's end or by arming its timeout.</summary>
    public CancellationTokenSource CreateRequestSource() => CancellationTokenSource.CreateLinkedTokenSource(_runEnd.Token);

    /// <summary>
    /// A closed-loop worker's own raw connection, or null when the run uses HttpClient (or the open loop's pool).
    /// The worker disposes it.
    /// </summary>
    public RawHttp11Connection? CreateConnection() =>
        _rawRequest is null || _rawPool is not null ? null : new RawHttp11Connection(_rawEndPoint!, _rawRequest, _expectation);

    /// <summary>
    /// Sends one request (streaming its body, if any), reads the response body to its end (comparing it with <see cref="LoadOptions.ExpectedBody"/> as
    /// it arrives, when set) and records the outcome. Latency runs from
    /// <paramref name="scheduledTimestamp"/> (the open loop's schedule, or the send time in a closed loop)
    /// to the last body byte. Never throws. Raw transport: on <paramref name="connection"/>, or (open loop)
    /// on one from the pool, waiting for it within the request's timeout. Returns whether the request failed to
    /// connect (<see cref="RequestFailures.FailedToConnect"/>), for the closed loop's back-off.
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<bool> ExecuteAsync(long scheduledTimestamp, byte[] buffer, CancellationTokenSource request, RawHttp11Connection? connection)
    {
        var token = request.Token;
        request.CancelAfter(Options.RequestTimeout);
        RawHttp11Connection? rented = null;
        var responseStarted = false;

        // HttpClient's body read so far and its Content-Length: a request cut at the run's end counts what it received.
        long bytes = 0;
        long declared = -1;
        try
        {
            if (_rawRequest is not null)
            {
                if (connection is null)
                {
                    connection = rented = await _rawPool!.RentAsync(token);
                }

                responseStarted = true;
                var (statusCode, bodyBytes, mismatch) = await connection.SendAsync(token);
                Record(scheduledTimestamp, statusCode, bodyBytes, mismatch);
                return false;
            }

            using var message = new HttpRequestMessage(Options.Method, _target)
            {
                Version = _version,
                VersionPolicy = HttpVersionPolicy.RequestVersionExact,
                Content = Options.Body?.CreateContent(),
            };
            AddHeaders(message);
            using var response = await _client.SendAsync(message, HttpCompletionOption.ResponseHeadersRead, token);
            responseStarted = true;
            using var body = await response.Content.ReadAsStreamAsync(token);
            var status = (int)response.StatusCode;
            var comparison = BodyComparison.Start(_expectation, status);
            using var digests = ResponseDigests.Start(_expectation, status, response);
            declared = response.Content.Headers.ContentLength ?? -1;
            int read;
            while ((read = await body.ReadAsync(buffer, token)) > 0)
            {
                comparison.Add(buffer.AsSpan(0, read));
                digests?.Add(buffer.AsSpan(0, read));
                bytes += read;
            }

            // HttpClient throws on a body short of its Content-Length; one that ran past it is caught here.
            var lengthMatches = Options.Method == HttpMethod.Head || status is 204 or 304
                || declared < 0 || declared == bytes;
            Record(scheduledTimestamp, status, bytes, comparison.Mismatch ?? digests?.Mismatch(), lengthMatches);
            return false;
        }
#pragma warning disable CA1031 // Every failure is an outcome to count, never a reason to stop the run.
        catch (Exception exception)
#pragma warning restore CA1031
        {
            if (!_runEnd.IsCancellationRequested && EarlyResponseException.Find(exception) is { } early)
            {
                // The server answered before the body had gone, then closed (Kestrel's 413 over its limit): a response.
                Counters.AddAnsweredBeforeBody();
                Record(scheduledTimestamp, early.StatusCode, 0, null, bodySent: false);
                return false;
            }

            var failure = RequestFailures.Classify(exception, _runEnd.IsCancellationRequested, request.IsCancellationRequested, responseStarted);
            Counters.AddFailure(failure, exception);
            if (failure == RequestFailure.CancelledAtEnd)
            {
                Counters.AddCutBody(connection?.BodyBytesReceived ?? bytes, connection?.BodyBytesDeclared ?? declared);
                return false;
            }

            Series.RecordFailure(SecondOf(Stopwatch.GetTimestamp()));
            return RequestFailures.FailedToConnect(exception);
        }
        finally
        {
            if (rented is not null)
            {
                _rawPool!.Return(rented);
            }
        }
    }

    public void Dispose()
    {
        _rawPool?.Dispose();
        _client.Dispose();
        _issueEnd.Dispose();
        _runEnd.Dispose();
    }

    /// <summary>
    /// Every complete response is tallied by status and recorded in the histogram and series, bad ones too
    /// (as wrk and crank do): its latency is real, <see cref="LoadResult.Latency"/> keeps one value per
    /// response, and a run with bad responses is unverified, so its figures are not reported as a result.
    /// </summary>
    private void Record(long scheduledTimestamp, int statusCode, long bodyBytes, FailureReason? mismatch, bool lengthMatches = true, bool bodySent = true)
    {
        var end = Stopwatch.GetTimestamp();
        var latency = Stopwatch.GetElapsedTime(scheduledTimestamp, end).Ticks / TimeSpan.TicksPerMicrosecond;
        var verdict = _expectation?.Judge(statusCode, mismatch is null, lengthMatches)
            ?? (lengthMatches ? ResponseVerdict.Good : ResponseVerdict.LengthMismatch);
        Counters.AddResponse(statusCode, bodyBytes, verdict);
        if (verdict != ResponseVerdict.Good && Counters.FirstFailure is null)
        {
            // Only the first failure is explained: a run of bad responses formats one explanation, not one each (a
            // digest mismatch carries its two digests from the comparison, formatted there).
            Counters.NoteFirstFailure(_expectation?.Explain(verdict, statusCode, mismatch) ?? FailureReasons.LengthMismatch);
        }
        if (Volatile.Read(ref _firstLatency) < 0)
        {
            Interlocked.CompareExchange(ref _firstLatency, Math.Max(0, latency), -1);
        }

        Histogram.Record(latency);
        var second = SecondOf(end);
        Series.RecordResponse(second, latency, bodyBytes + (bodySent ? Options.Body?.Length ?? 0 : 0));
        if (verdict != ResponseVerdict.Good)
        {
            // A wrong status, body or length is a failure in the second's series too, as in the run's totals.
            Series.RecordFailure(second);
        }
    }

    /// <summary>
    /// The run's header fields on one request: content fields (Content-Type, …) on its content, the rest on the
    /// request; a Content-Type given replaces the body's own.
    /// </summary>
    private void AddHeaders(HttpRequestMessage message)
    {
        if (message.Content is { } content && Options.Body is { } requestBody)
        {
            content.Headers.TryAddWithoutValidation("Content-Type", requestBody.ContentType);
        }

        var headers = Options.Headers;
        for (var i = 0; i < headers.Count; i++)
        {
            var (name, value) = headers[i];
            if (message.Content is { } withContent && name.StartsWith("Content-", StringComparison.OrdinalIgnoreCase))
            {
                withContent.Headers.Remove(name);
                withContent.Headers.TryAddWithoutValidation(name, value);
            }
            else
            {
                message.Headers.TryAddWithoutValidation(name, value);
            }
        }
    }

    private static SocketsHttpHandler CreateHandler(LoadOptions options)
    {
        var handler = new SocketsHttpHandler
        {
            // HTTP/1.1: one connection per worker, so N workers hold exactly N keep-alive connections.
            MaxConnectionsPerServer = options.ConnectionLimit,

            // HTTP/2: all requests multiplexed on one connection, as a browser or gRPC client would.
            EnableMultipleHttp2Connections = false,
            UseProxy = false,
            UseCookies = false,
            AllowAutoRedirect = false,
            AutomaticDecompression = DecompressionMethods.None,

            // Connections live as long as the run; reconnects would be measured as latency.
            PooledConnectionLifetime = Timeout.InfiniteTimeSpan,
            PooledConnectionIdleTimeout = Timeout.InfiniteTimeSpan,
        };
        if (options.Body is not null && options.Target.Scheme == Uri.UriSchemeHttp && options.HttpVersion == HttpVersion.Version11)
        {
            // Cleartext HTTP/1.1 with a body: a server's answer before the body has gone is read when the send fails.
            handler.ConnectCallback = EarlyResponseStream.ConnectAsync;
        }

        options.ConfigureHandler?.Invoke(handler);
        return handler;
    }
}
