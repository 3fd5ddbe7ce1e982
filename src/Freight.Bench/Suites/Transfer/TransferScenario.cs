using Freight.Bench.Reports;
using Freight.Bench.Results;

namespace Freight.Bench.Suites.Transfer;

/// <summary>Which way the bytes go.</summary>
public enum TransferDirection
{
    Download,
    Upload,
    /// <summary>The raw TCP loopback probe: the same bytes over a plain socket pair, the ceiling.</summary>
    Probe,
}

/// <summary>
/// One row of the transfer suite: a lab endpoint (its id is the scenario id, e.g. <c>upload/freight</c>)
/// and the client-side parameters the study varied. <see cref="AaCopy"/> marks the suite's A/A control: the same
/// endpoint and parameters measured again under <see cref="RowId"/>.
/// </summary>
public sealed record TransferScenario(
    string Id,
    TransferDirection Direction,
    string Scheme = "http",
    string Protocol = "http/1.1",
    string Source = "memory",
    int ClientBufferBytes = 64 * 1024,
    bool ChunkedBody = false,
    string Sink = "memory",
    PublishedFigure? Published = null,
    string Server = TransferScenario.FreightServer,
    bool AaCopy = false)
{
    /// <summary>The embedded server as <c>freight serve</c> runs by default (256 KiB transport blocks).</summary>
    public const string FreightServer = "freight";

    /// <summary>The embedded server with Kestrel's stock transport memory pool (4 KiB blocks).</summary>
    public const string StockPoolServer = "stock-pool";

    /// <summary>The row's id: <see cref="Id"/> (the lab endpoint), or its A/A copy's (<c>download/freight#a</c>).</summary>
    public string RowId => AaCopy ? Verdicts.AaControl.CopyId(Id) : Id;
    /// <summary>nginx over TLS (<c>peer/nginx-tls</c>): the payload file by GET, WebDAV PUT to disk.</summary>
    public const string NginxTlsServer = "nginx-tls";

    /// <summary>The id of nginx's TLS rows.</summary>
    public const string NginxTlsId = "peer/nginx-tls";

    /// <summary>The lab variant after the area, e.g. <c>freight</c> in <c>upload/freight</c>.</summary>
    public string Variant => Id[(Id.IndexOf('/', StringComparison.Ordinal) + 1)..];

    /// <summary>True for the variants that post multipart/form-data.</summary>
    public bool IsMultipart => Id is "upload/iformfile" or "upload/multipart-reader" or "upload/multipart-freight";

    /// <summary>A short human label of the parameters that distinguish rows with one id.</summary>
    public string Describe() => Direction == TransferDirection.Probe
        ? $"tcp {ClientBufferBytes / 1024}K"
        : $"{Scheme} {(Protocol == "h2" ? "h2" : "h1")} {Source} {ClientBufferBytes / 1024}K{(ChunkedBody ? " chunked" : "")}{(Sink == "file" ? " →file" : "")}{(Server == StockPoolServer ? " stock-pool" : "")}";
}
