using Freight.Multipart;

namespace Freight.Server.Hosting;

/// <summary>
/// Limits of Freight's multipart parser as configuration sees them (<c>Freight:Multipart:*</c>): plain
/// values, validated at start with the option's name, then turned into <see cref="MultipartLimits"/>.
/// </summary>
public sealed class MultipartOptions
{
    /// <inheritdoc cref="MultipartLimits.MaxHeadersBytes"/>
    public int MaxHeadersBytes { get; set; } = MultipartLimits.DefaultMaxHeadersBytes;

    /// <inheritdoc cref="MultipartLimits.MaxHeaderCount"/>
    public int MaxHeaderCount { get; set; } = MultipartLimits.DefaultMaxHeaderCount;

    /// <inheritdoc cref="MultipartLimits.MaxSections"/>
    public int MaxSections { get; set; } = MultipartLimits.DefaultMaxSections;

    public MultipartLimits ToLimits() => new()
    {
        MaxHeadersBytes = MaxHeadersBytes,
        MaxHeaderCount = MaxHeaderCount,
        MaxSections = MaxSections,
    };

    internal void Validate(List<string> errors)
    {
        if (MaxHeadersBytes < 64)
        {
            errors.Add($"Freight:Multipart:MaxHeadersBytes is {MaxHeadersBytes}: it must be at least 64.");
        }

        if (MaxHeaderCount < 1)
        {
            errors.Add($"Freight:Multipart:MaxHeaderCount is {MaxHeaderCount}: it must be at least 1.");
        }

        if (MaxSections < 1)
        {
            errors.Add($"Freight:Multipart:MaxSections is {MaxSections}: it must be at least 1.");
        }
    }
}
