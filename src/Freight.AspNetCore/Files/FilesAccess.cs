using System.Security.Cryptography;
using System.Text;
using Freight.AspNetCore.Errors;
using Microsoft.AspNetCore.Http;

namespace Freight.AspNetCore.Files;

/// <summary>
/// Bearer-token access (RFC 6750) to the files API: read tokens may read, write tokens may read and write.
/// No token configured at all: open access (a loopback or trusted network). Tokens compare in constant time.
/// </summary>
internal sealed class FilesAccess(FilesOptions options)
{
    private readonly byte[][] _readTokens = options.ReadTokens.Select(Encoding.UTF8.GetBytes).ToArray();
    private readonly byte[][] _writeTokens = options.WriteTokens.Select(Encoding.UTF8.GetBytes).ToArray();

    public bool IsOpen => _readTokens.Length == 0 && _writeTokens.Length == 0;

    /// <summary>
    /// Whether the request may not read, or write when <paramref name="write"/>: if so, its 401 problem (with
    /// <c>WWW-Authenticate</c>) is set to answer it (<see cref="ProblemMiddleware.Refuse"/>, without a throw: any client
    /// can send a request without a token), and the caller returns.
    /// </summary>
    public bool Refuses(HttpContext context, bool write)
    {
        ArgumentNullException.ThrowIfNull(context);
        if (IsOpen)
        {
            return false;
        }

        var header = context.Request.Headers.Authorization.ToString();
        if (!header.StartsWith("Bearer ", StringComparison.OrdinalIgnoreCase))
        {
            ProblemMiddleware.Refuse(context, Unauthorized("Bearer realm=\"freight\"", "This server needs a bearer token: send Authorization: Bearer TOKEN."));
            return true;
        }

        var presented = Encoding.UTF8.GetBytes(header[7..].Trim());
        if (Matches(presented, _writeTokens) || (!write && Matches(presented, _readTokens)))
        {
            return false;
        }

        // RFC 6750 §3.1: invalid_token for a token that is not accepted (a read token writing included).
        ProblemMiddleware.Refuse(context, Unauthorized("Bearer realm=\"freight\", error=\"invalid_token\"", write ? "The token may not write here." : "The token is not valid here."));
        return true;
    }

    private static bool Matches(byte[] presented, byte[][] tokens)
    {
        var found = false;
        foreach (var token in tokens)
        {
            found |= CryptographicOperations.FixedTimeEquals(presented, token);
        }

        return found;
    }

    private static ProblemException Unauthorized(string challenge, string detail) =>
        new(StatusCodes.Status401Unauthorized, "Unauthorized", detail, new Dictionary<string, string> { ["WWW-Authenticate"] = challenge });
}
