using Microsoft.AspNetCore.Http;

namespace Freight.AspNetCore.Errors;

/// <summary>
/// Members a handler adds to the problem <see cref="ProblemMiddleware"/> writes if the request fails, beside status,
/// title and detail: what the client needs to know of what the failed request did change (a multipart POST's files
/// stored before a later part failed). A value is read when the problem is written, so it may grow as the handler runs.
/// </summary>
internal sealed class ProblemExtensions
{
    private readonly Dictionary<string, object?> _members = new(StringComparer.Ordinal);

    /// <summary>Adds <paramref name="name"/> to the problem the request answers, if it fails.</summary>
    public static void Add(HttpContext context, string name, object value)
    {
        var extensions = context.Features.Get<ProblemExtensions>();
        if (extensions is null)
        {
            extensions = new ProblemExtensions();
            context.Features.Set(extensions);
        }

        extensions._members[name] = value;
    }

    /// <summary>The members handlers of the request added, if any.</summary>
    public static IReadOnlyDictionary<string, object?>? Of(HttpContext context) =>
        context.Features.Get<ProblemExtensions>()?._members;
}
