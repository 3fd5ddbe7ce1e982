using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Freight.Telemetry;

/// <summary>
/// Freight's meter and activity source, both named <see cref="Name"/>: what OpenTelemetry's <c>AddMeter("Freight")</c>
/// and <c>AddSource("Freight")</c>, and <c>dotnet-counters monitor --counters Freight</c>, listen to. The instruments
/// and their tags are listed in docs/library.md ("Telemetry").
/// </summary>
/// <remarks>
/// One static meter, not one per <c>IMeterFactory</c>: the instruments are reached from static code on the hot
/// paths (the upload copy loops, <see cref="Downloads.FileSender"/>) and from stores built outside DI, so a
/// factory's meter would cost a service lookup per request or a parameter through every one of those calls.
/// Listeners see it the same way either way; .NET's own libraries below DI (System.Net.Http, System.Runtime) do the same.
/// </remarks>
public static class FreightTelemetry
{
    /// <summary>The meter's and the activity source's name.</summary>
    public const string Name = "Freight";

    internal static readonly ActivitySource Source = new(Name, typeof(FreightTelemetry).Assembly.GetName().Version?.ToString());

    internal static readonly Meter Meter = new(Name, typeof(FreightTelemetry).Assembly.GetName().Version?.ToString());

    /// <summary>Tag: which kind of upload (<see cref="Put"/>, <see cref="Multipart"/>, <see cref="Tus"/>).</summary>
    public const string ProtocolTag = "freight.upload.protocol";

    /// <summary>Tag: why an upload was refused (<c>UploadRefusal</c>'s values).</summary>
    public const string RefusalReasonTag = "freight.upload.refusal_reason";

    /// <summary>Tag: the digest algorithm that did not match (sha-256, sha-512, md5; tus: sha1, sha256, …).</summary>
    public const string DigestAlgorithmTag = "freight.digest.algorithm";

    /// <summary>Tag: the store's kind (filesystem, memory, s3: its type's name without the interface's suffix).</summary>
    public const string StoreKindTag = "freight.store.kind";

    /// <summary>Tag: the store operation (open, info, begin_write, commit, delete, …).</summary>
    public const string StoreOperationTag = "freight.store.operation";

    /// <summary>Activity tag: the storage key (a tus PATCH: the upload's id).</summary>
    public const string KeyTag = "freight.key";

    /// <summary>Activity tag: the bytes an upload stored or a download sent.</summary>
    public const string BytesTag = "freight.bytes";

    /// <summary>Activity tag: how it ended (completed, refused, aborted; a store call: ok, error).</summary>
    public const string OutcomeTag = "freight.outcome";

    /// <summary>OpenTelemetry's attribute for the type of a failure (the exception's full type name).</summary>
    public const string ErrorTypeTag = "error.type";

    internal static readonly KeyValuePair<string, object?> Put = new(ProtocolTag, "put");

    internal static readonly KeyValuePair<string, object?> Multipart = new(ProtocolTag, "multipart");

    internal static readonly KeyValuePair<string, object?> Tus = new(ProtocolTag, "tus");

    /// <summary>Bytes of upload bodies received (a PUT, a multipart file part, a tus chunk), refused and aborted ones too.</summary>
    internal static readonly Counter<long> UploadBytes = Meter.CreateCounter<long>(
        "freight.upload.bytes", "By", "Bytes of upload bodies received into stores.");

    /// <summary>Bytes of file bodies written to responses (Freight's file path: the files API, static files).</summary>
    internal static readonly Counter<long> DownloadBytes = Meter.CreateCounter<long>(
        "freight.download.bytes", "By", "Bytes of file bodies sent on Freight's file path.");

    /// <summary>Tag: the listening port a sendfile(2) send went out on (OpenTelemetry's <c>server.port</c>).</summary>
    internal const string ServerPortTag = "server.port";

    /// <summary>
    /// Bytes of file bodies sent with sendfile(2) (cleartext HTTP/1.1, Freight:SendFile on): one measurement per file
    /// body or range, not per chunk, tagged with the listening port so that one listener of several can be told apart.
    /// Zero on a path that copies (HTTPS, HTTP/2, small bodies, sendfile off). They count in <see cref="DownloadBytes"/> too.
    /// </summary>
    internal static readonly Counter<long> SendFileBytes = Meter.CreateCounter<long>(
        "freight.sendfile.bytes", "By", "Bytes of file bodies sent with sendfile(2).");

    /// <summary>Downloads cut because their client read under the minimum response data rate for a whole grace period, by listening port.</summary>
    internal static readonly Counter<long> DownloadsCut = Meter.CreateCounter<long>(
        "freight.download.cut", "{download}", "Downloads cut: the client read under the minimum response data rate for a whole grace period.");

    internal static readonly Counter<long> UploadsStarted = Meter.CreateCounter<long>(
        "freight.upload.started", "{upload}", "Uploads that started (each ends once: completed, refused or aborted).");

    internal static readonly Counter<long> UploadsCompleted = Meter.CreateCounter<long>(
        "freight.upload.completed", "{upload}", "Uploads whose bytes were stored.");

    internal static readonly Counter<long> UploadsAborted = Meter.CreateCounter<long>(
        "freight.upload.aborted", "{upload}", "Uploads that ended without being stored or refused: the client went away, or the server failed.");

    internal static readonly Counter<long> UploadsRefused = Meter.CreateCounter<long>(
        "freight.upload.refused", "{upload}", "Uploads refused, by reason; nothing of them was stored.");

    internal static readonly UpDownCounter<long> ActiveUploads = Meter.CreateUpDownCounter<long>(
        "freight.active_uploads", "{upload}", "Uploads in progress.");

    internal static readonly Counter<long> DigestMismatches = Meter.CreateCounter<long>(
        "freight.digest.mismatches", "{mismatch}", "Digests sent with an upload that the bytes received did not match.");

    /// <summary>
    /// Boundaries not tuned by a measurement: they span a local file open (tens of µs) to an S3 multipart
    /// completion (seconds), where OpenTelemetry's defaults (0–10,000, made for milliseconds) would put every call in one bucket.
    /// </summary>
    internal static readonly Histogram<double> StoreOperationDuration = Meter.CreateHistogram(
        "freight.store.operation.duration", "s", "How long store operations took.",
        tags: null,
        advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] });

    /// <summary>Counts one sendfile(2) send of <paramref name="bytes"/> on the listener at <paramref name="port"/>.</summary>
    internal static void SentFile(long bytes, int port)
    {
        // The port's boxing is the one allocation here: none while no one listens.
        if (SendFileBytes.Enabled)
        {
            SendFileBytes.Add(bytes, new KeyValuePair<string, object?>(ServerPortTag, port));
        }
    }

    /// <summary>Counts one download cut for a slow reader on the listener at <paramref name="port"/>.</summary>
    internal static void CutDownload(int port) => DownloadsCut.Add(1, new KeyValuePair<string, object?>(ServerPortTag, port));

    /// <summary>Counts one digest that did not match, by its algorithm's name.</summary>
    internal static void DigestMismatch(string algorithm) =>
        DigestMismatches.Add(1, new KeyValuePair<string, object?>(DigestAlgorithmTag, algorithm));
}
