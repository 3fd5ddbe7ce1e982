namespace Freight.Server.Tests.Infrastructure;

/// <summary>
/// The HTTP version a test speaks. HTTP/1.1 goes to the server's http:// address; HTTP/2 to its
/// https:// address (ALPN), since Kestrel cannot offer both on one cleartext port.
/// </summary>
public enum Protocol
{
    Http11,
    Http2,
}

/// <summary>How an upload's length reaches the server.</summary>
public enum Framing
{
    /// <summary>A Content-Length header.</summary>
    ContentLength,

    /// <summary>No length up front: chunked transfer coding on HTTP/1.1, DATA frames without Content-Length on HTTP/2.</summary>
    Chunked,
}

/// <summary>The lab's <c>?sink=</c> query: hash and discard, or store under the data directory.</summary>
public enum Sink
{
    Memory,
    File,
}
