using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Suites.Transfer;

/// <summary>
/// <c>--suite transfer</c>: study 1 (its variants with their published MiB/s) side by side
/// with Freight's paths, the stock paths of today, and the raw TCP ceiling.
/// </summary>
public static class TransferSuite
{
    public const string Name = "transfer";

    public const string ProbeId = "tcp/loopback";

    private const int K = 1024;

    private static PublishedFigure Study1(double mibPerSecond, string label) => new(mibPerSecond, "MiB/s", 1, label);

    /// <summary>The uploads among the headline rows: study 1's U1 and U2, Freight's multipart parser and raw upload.</summary>
    private static readonly HashSet<string> HeadlineUploads = ["upload/iformfile", "upload/multipart-reader", "upload/multipart-freight", "upload/freight"];

    /// <summary><paramref name="full"/>: every scenario; otherwise the headline ones (see <see cref="IsHeadline"/>).</summary>
    public static IReadOnlyList<TransferScenario> Create(bool full = true) => full ? All() : [.. All().Where(IsHeadline)];

    /// <summary>
    /// True for the rows the default run's headline ratios and goals are drawn from: study 1's D1/D2 and U1/U2, every
    /// HTTP/1.1 download (the "best other download" goal needs them all), Freight's multipart and raw upload, and the
    /// TCP ceiling — on the default server, cleartext, from memory, known length, 64 KiB client buffers.
    /// </summary>
    public static bool IsHeadline(TransferScenario scenario)
    {
        ArgumentNullException.ThrowIfNull(scenario);
        return scenario.Direction == TransferDirection.Probe
            || (scenario is { Server: TransferScenario.FreightServer, Scheme: "http", Protocol: "http/1.1", Source: "memory", Sink: "memory", ChunkedBody: false, ClientBufferBytes: 64 * K }
                && (scenario.Direction == TransferDirection.Download || HeadlineUploads.Contains(scenario.Id)));
    }

    private static IReadOnlyList<TransferScenario> All() =>
    [
        // The sink (another process) receives into 1 MiB; sending 1 MiB at a time measured best here:
        // 64 KiB ~1.6 GiB/s, 256 KiB ~2.1, 1 MiB ~2.9, 4 MiB ~2.9 (iperf3, 128 KiB writes: ~2.6).
        new(TransferSuite.ProbeId, TransferDirection.Probe, ClientBufferBytes: 1024 * K),

        // Downloads: the study's two (D1, D2), today's stock variants, and Freight's.
        new("download/stream-4k", TransferDirection.Download, Published: Study1(140, "D1")),
        new("download/stream-default", TransferDirection.Download),
        new("download/stream-64k", TransferDirection.Download, Published: Study1(200, "D2")),
        new("download/bytes", TransferDirection.Download),
        new("download/pipewriter", TransferDirection.Download),
        new("download/file", TransferDirection.Download),
        new("download/freight", TransferDirection.Download),
        new("download/file", TransferDirection.Download, Scheme: "https"),
        new("download/freight", TransferDirection.Download, Scheme: "https"),
        new("download/freight", TransferDirection.Download, Scheme: "https", Protocol: "h2"),
        // HTTP/2 without TLS (h2c, prior knowledge, its own port): the framing's cost apart from the cipher's.
        new("download/freight", TransferDirection.Download, Scheme: "h2c", Protocol: "h2"),
        // nginx over TLS on the same payload file (as Freight's lab file: page cache, no sendfile under TLS).
        new(TransferScenario.NginxTlsId, TransferDirection.Download, Scheme: "https", Server: TransferScenario.NginxTlsServer),

        // Multipart uploads: U1, U2 and Freight's parser.
        new("upload/iformfile", TransferDirection.Upload, Published: Study1(30, "U1")),
        new("upload/multipart-reader", TransferDirection.Upload, Published: Study1(350, "U2")),
        new("upload/multipart-freight", TransferDirection.Upload),
        new("upload/multipart-freight", TransferDirection.Upload, Sink: "file"),

        // Raw body uploads: U3–U9 exactly as the study varied them (server reads with 4 KiB).
        new("upload/raw-stream", TransferDirection.Upload, ClientBufferBytes: 4 * K, Published: Study1(450, "U3")),
        new("upload/raw-stream", TransferDirection.Upload, Source: "file", ClientBufferBytes: 4 * K, Published: Study1(110, "U4")),
        new("upload/raw-stream", TransferDirection.Upload, Scheme: "https", ClientBufferBytes: 4 * K, Published: Study1(300, "U5")),
        new("upload/raw-stream", TransferDirection.Upload, Scheme: "https", Source: "file", ClientBufferBytes: 4 * K, Published: Study1(23, "U6")),
        new("upload/raw-stream", TransferDirection.Upload, Scheme: "https", ClientBufferBytes: 64 * K, Published: Study1(300, "U7")),
        new("upload/raw-stream", TransferDirection.Upload, Scheme: "https", Source: "file", ClientBufferBytes: 64 * K, Published: Study1(200, "U8")),
        new("upload/raw-stream", TransferDirection.Upload, Scheme: "https", Source: "file", ClientBufferBytes: 128 * K, Published: Study1(250, "U9")),

        // Raw body uploads on the pipe: the plain loop and Freight's path, then Freight's over the other axes.
        new("upload/raw-pipe", TransferDirection.Upload),
        new("upload/freight", TransferDirection.Upload),
        new("upload/freight", TransferDirection.Upload, ChunkedBody: true),
        new("upload/freight", TransferDirection.Upload, Sink: "file"),
        new("upload/freight", TransferDirection.Upload, Scheme: "https"),
        new("upload/freight", TransferDirection.Upload, Scheme: "https", Protocol: "h2"),
        new("upload/freight", TransferDirection.Upload, Scheme: "h2c", Protocol: "h2"),
        // To disk on both sides: nginx's WebDAV PUT beside Freight's upload to a file, over TLS.
        new("upload/freight", TransferDirection.Upload, Scheme: "https", Sink: "file"),
        new(TransferScenario.NginxTlsId, TransferDirection.Upload, Scheme: "https", Sink: "file", Server: TransferScenario.NginxTlsServer),

        // The same paths on a second embedded server that keeps Kestrel's stock transport pool (4 KiB
        // blocks): what FreightServerOptions.TransportBlockBytes is worth, app code unchanged.
        new("download/file", TransferDirection.Download, Server: TransferScenario.StockPoolServer),
        new("download/freight", TransferDirection.Download, Server: TransferScenario.StockPoolServer),
        new("upload/raw-stream", TransferDirection.Upload, ClientBufferBytes: 4 * K, Server: TransferScenario.StockPoolServer),
        new("upload/multipart-reader", TransferDirection.Upload, Server: TransferScenario.StockPoolServer),
        new("upload/multipart-freight", TransferDirection.Upload, Server: TransferScenario.StockPoolServer),
        new("upload/freight", TransferDirection.Upload, Server: TransferScenario.StockPoolServer),

        // The A/A control: download/freight again, last in each pass, so its ratio to the original spans the whole
        // pass's drift. Why this row: it sits in four goals (against download/file, the best other download, the
        // tcp ceiling and the stock pool), so its noise is that of the fast rows most goals compare, and it costs one
        // run's seconds a pass like any row (runs are timed, not counted, so no row is cheaper).
        new("download/freight", TransferDirection.Download, AaCopy: true),
    ];
}
