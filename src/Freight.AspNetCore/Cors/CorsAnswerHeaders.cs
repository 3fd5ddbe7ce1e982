using Microsoft.AspNetCore.Cors.Infrastructure;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Microsoft.Extensions.Primitives;
using Microsoft.Net.Http.Headers;

namespace Freight.AspNetCore.Cors;

/// <summary>
/// What ASP.NET Core's CORS middleware leaves out of an answer, added as it starts (<c>UseFreightCors()</c>):
/// <list type="bullet">
/// <item><c>Vary: Origin</c> on every answer when the policy names its origins. The middleware sends it only with two
/// origins or more, and never to a request without <c>Origin</c>: a tab that opened a file's URL left a copy without
/// CORS headers in the browser's cache, and the page's later fetch of the URL, served from that copy, failed.</item>
/// <item><c>Timing-Allow-Origin</c> with the origin CORS allowed (or <c>*</c>): without it Resource Timing hides the
/// page's own uploads and downloads (zeroed timings, no protocol).</item>
/// </list>
/// </summary>
internal sealed class CorsAnswerHeaders
{
    public const string TimingAllowOriginHeader = "Timing-Allow-Origin";

    private readonly IServiceProvider _services;
    private readonly string? _policyName;
    private readonly Func<object, Task> _onStarting;
    private int _variesByOrigin; // 0 not read yet, 1 yes, 2 no

    public CorsAnswerHeaders(IServiceProvider services, string? policyName)
    {
        _services = services;
        _policyName = policyName;
        _onStarting = state =>
        {
            Add(((HttpContext)state).Response.Headers);
            return Task.CompletedTask;
        };
    }

    /// <summary>
    /// Adds the headers as the response starts. Registered before the CORS middleware's own callback, so it runs after
    /// it (they run last registered first) and sees its <c>Access-Control-Allow-Origin</c> and <c>Vary</c>.
    /// </summary>
    public void Register(HttpContext context) => context.Response.OnStarting(_onStarting, context);

    private void Add(IHeaderDictionary headers)
    {
        if (headers.AccessControlAllowOrigin is { Count: > 0 } allowed && !headers.ContainsKey(TimingAllowOriginHeader))
        {
            headers[TimingAllowOriginHeader] = allowed;
        }

        if (VariesByOrigin() && !NamesOrigin(headers.Vary))
        {
            headers.Append(HeaderNames.Vary, HeaderNames.Origin);
        }
    }

    /// <summary>
    /// Whether the answer depends on the request's origin: not when the policy allows any (<c>*</c> for all). Read at
    /// the first request (the host configures the options at start), then kept: a policy does not change.
    /// </summary>
    private bool VariesByOrigin()
    {
        if (Volatile.Read(ref _variesByOrigin) == 0)
        {
            Volatile.Write(ref _variesByOrigin, ReadPolicy() is { AllowAnyOrigin: true } ? 2 : 1);
        }

        return _variesByOrigin == 1;
    }

    private CorsPolicy? ReadPolicy()
    {
        var options = _services.GetRequiredService<IOptions<CorsOptions>>().Value;
        return options.GetPolicy(_policyName ?? options.DefaultPolicyName);
    }

    private static bool NamesOrigin(StringValues vary)
    {
        foreach (var value in vary)
        {
            foreach (var name in (value ?? "").Split(',', StringSplitOptions.TrimEntries))
            {
                if (name == "*" || name.Equals(HeaderNames.Origin, StringComparison.OrdinalIgnoreCase))
                {
                    return true;
                }
            }
        }

        return false;
    }
}
