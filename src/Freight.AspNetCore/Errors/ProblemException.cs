namespace Freight.AspNetCore.Errors;

/// <summary>
/// A request the server refuses, with the status, a short title and a detail the client can act on;
/// <see cref="ProblemMiddleware"/> writes it as <c>application/problem+json</c> and logs it once.
/// <see cref="Headers"/> go out with it (e.g. <c>WWW-Authenticate</c> on 401, <c>Retry-After</c> on 429).
/// </summary>
public sealed class ProblemException : Exception
{
    /// <summary>A refusal with <paramref name="status"/>, a short <paramref name="title"/>, the client's <paramref name="detail"/>, extra response <paramref name="headers"/> and the <paramref name="cause"/> that is logged, not sent.</summary>
    public ProblemException(int status, string title, string detail, IReadOnlyDictionary<string, string>? headers = null, Exception? cause = null)
        : base(detail, cause)
    {
        Status = status;
        Title = title;
        Headers = headers ?? new Dictionary<string, string>();
    }

    /// <summary>A 400 "Bad request".</summary>
    public ProblemException()
        : this(400, "Bad request", "The request was refused.")
    {
    }

    /// <summary>A 400 "Bad request" with <paramref name="message"/> as its detail.</summary>
    public ProblemException(string message)
        : this(400, "Bad request", message)
    {
    }

    /// <summary>A 400 "Bad request" with <paramref name="message"/> as its detail and its cause.</summary>
    public ProblemException(string message, Exception innerException)
        : base(message, innerException)
    {
        Status = 400;
        Title = "Bad request";
        Headers = new Dictionary<string, string>();
    }

    /// <summary>The same refusal with one more response header.</summary>
    public ProblemException WithHeader(string name, string value) =>
        new(Status, Title, Message, new Dictionary<string, string>(Headers) { [name] = value }, InnerException);

    /// <summary>The title of a 507 (the storage is full).</summary>
    public const string StorageFullTitle = "Insufficient storage";

    /// <summary>The title of a refused upload whose body did not match a digest sent with it (its telemetry reason too).</summary>
    public const string DigestMismatchTitle = "Digest mismatch";

    /// <summary>
    /// 507 (RFC 4918 §11.5) for a write the storage had no room for (<see cref="Freight.Storage.OutOfSpace"/>); the
    /// cause's message names a server path, so the client gets what it can act on instead.
    /// </summary>
    public static ProblemException StorageFull(Exception cause) =>
        new(507, StorageFullTitle,
            "The server's storage is full: what did not fit was not stored (a tus upload keeps the bytes it holds; HEAD tells its offset). Retry once space is freed.",
            cause: cause);

    /// <summary>The title of a 503 for a write the storage refuses for good (read-only, no permission, its directory moved).</summary>
    public const string StorageUnwritableTitle = "Storage cannot be written";

    /// <summary>
    /// 503 for a write the storage refused for good (<see cref="Freight.Storage.Unwritable"/>): the server's fault, not
    /// the client's, and another node may take it; the cause's message names a server path, so the client gets this.
    /// </summary>
    internal static ProblemException StorageUnwritable(Exception cause) =>
        new(503, StorageUnwritableTitle,
            "The server's storage cannot be written (read-only, without permission, or its directory moved): nothing was stored. Retry later or on another server.",
            cause: cause);

    /// <summary>The HTTP status answered.</summary>
    public int Status { get; }

    /// <summary>The problem's short title.</summary>
    public string Title { get; }

    /// <summary>Response headers sent with the problem.</summary>
    public IReadOnlyDictionary<string, string> Headers { get; }
}
