namespace Freight.Bench.Load.Engine;

/// <summary>The server answered <see cref="StatusCode"/> while the request was sent, then closed: a response, not a failure to connect.</summary>
internal sealed class EarlyResponseException(int statusCode, Exception sendFailed)
    : IOException($"The server answered {statusCode} while the request was sent, then closed the connection.", sendFailed)
{
    public int StatusCode { get; } = statusCode;

    /// <summary>The early answer in <paramref name="exception"/>'s chain (HttpClient wraps what its stream threw); null when there is none.</summary>
    public static EarlyResponseException? Find(Exception exception)
    {
        for (var inner = exception; inner is not null; inner = inner.InnerException)
        {
            if (inner is EarlyResponseException early)
            {
                return early;
            }
        }

        return null;
    }
}
