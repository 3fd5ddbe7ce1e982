namespace Freight.Multipart;

/// <summary>Limits that bound the work and memory a <see cref="MultipartPipeReader"/> spends on one body.</summary>
public sealed class MultipartLimits
{
    /// <summary>Default for <see cref="MaxHeadersBytes"/>: 16 KiB, as ASP.NET Core's <c>MultipartReader.HeadersLengthLimit</c>.</summary>
    public const int DefaultMaxHeadersBytes = 16 * 1024;

    /// <summary>Default for <see cref="MaxHeaderCount"/>: 16, as ASP.NET Core's <c>MultipartReader.HeadersCountLimit</c>.</summary>
    public const int DefaultMaxHeaderCount = 16;

    /// <summary>Default for <see cref="MaxSections"/>: 128.</summary>
    public const int DefaultMaxSections = 128;

    /// <summary>Shared instance holding the defaults. Do not mutate.</summary>
    internal static readonly MultipartLimits Default = new();

    /// <summary>
    /// Maximum bytes of one section's header block, counting line terminators and the empty line that ends it,
    /// plus any transport padding on the boundary line before it. Default <see cref="DefaultMaxHeadersBytes"/> (16 KiB).
    /// </summary>
    public int MaxHeadersBytes
    {
        get;
        set
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 1);
            field = value;
        }
    } = DefaultMaxHeadersBytes;

    /// <summary>Maximum number of header lines in one section. Default <see cref="DefaultMaxHeaderCount"/> (16).</summary>
    public int MaxHeaderCount
    {
        get;
        set
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 1);
            field = value;
        }
    } = DefaultMaxHeaderCount;

    /// <summary>Maximum number of sections (parts) in one body. Default <see cref="DefaultMaxSections"/> (128).</summary>
    public int MaxSections
    {
        get;
        set
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 1);
            field = value;
        }
    } = DefaultMaxSections;
}
