namespace Freight.Bench.Load.Engine;

/// <summary>How the engine speaks HTTP to the target.</summary>
public enum LoadTransport
{
    /// <summary><see cref="RawHttp11"/> for http:// targets at HTTP/1.1, <see cref="HttpClient"/> otherwise (https, HTTP/2).</summary>
    Auto,

    /// <summary>
    /// <see cref="System.Net.Http.HttpClient"/> over a <see cref="System.Net.Http.SocketsHttpHandler"/>: every
    /// version and scheme, and <see cref="LoadOptions.ConfigureHandler"/> applies. Its per-request objects
    /// (request and response messages, header collections, content stream) cost client CPU that a 2-core
    /// machine shared with the server takes from the server.
    /// </summary>
    HttpClient,

    /// <summary>
    /// A lean HTTP/1.1 keep-alive client on one socket per connection (plain http:// only): a pre-built GET or
    /// file upload (the file sent in 64 KiB pieces from one pooled buffer), a reused receive buffer and no allocation per request.
    /// </summary>
    RawHttp11,
}
