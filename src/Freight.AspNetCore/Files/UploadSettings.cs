using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Freight.AspNetCore.Files;

/// <summary>
/// What every upload on Freight's path obeys, from the files API's options: the files API's routes and a user's own
/// share them. A singleton (<c>AddFreightFiles</c>), made at the first upload, once the options were validated.
/// </summary>
internal sealed record UploadSettings(long MaxFileBytes, bool AlwaysComputeSha256, UploadLimiter Limiter)
{
    /// <summary>Whether the app set <see cref="FilesOptions.MaxFileBytes"/>: then it, not Kestrel's body limit, decides how large an upload may be.</summary>
    public bool DecidesBodyLimit { get; init; }

    public static UploadSettings From(IServiceProvider services)
    {
        var options = services.GetRequiredService<FilesOptions>();

        // Unset, a file may be as large as the server lets a request body be.
        var maxFileBytes = options.MaxFileBytes > 0 ? options.MaxFileBytes
            : services.GetService<IOptions<KestrelServerOptions>>()?.Value.Limits.MaxRequestBodySize ?? long.MaxValue;
        return new UploadSettings(maxFileBytes, options.AlwaysComputeSha256, services.GetRequiredService<UploadLimiter>()) { DecidesBodyLimit = options.MaxFileBytes > 0 };
    }
}
