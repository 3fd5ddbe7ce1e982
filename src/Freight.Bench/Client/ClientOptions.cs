namespace Freight.Bench.Client;

/// <summary>Options of <c>freight put</c> and <c>freight get</c>.</summary>
public sealed record ClientOptions
{
    /// <summary>The remote file: a freight serve <c>/files/...</c> address or any HTTP(S) URL.</summary>
    public required Uri Url { get; init; }

    /// <summary>The local file: what put sends, or where get saves.</summary>
    public required string File { get; init; }

    /// <summary>Sent as <c>Authorization: Bearer TOKEN</c>.</summary>
    public string? Token { get; init; }

    /// <summary>put only: <c>If-None-Match: *</c>, so an existing file is never replaced.</summary>
    public bool IfNoneMatch { get; init; }

    public bool NoProgress { get; init; }

    /// <summary>Upper-case hex SHA-256 of the only certificate an https:// server may present.</summary>
    public string? CertificateSha256 { get; init; }
}
