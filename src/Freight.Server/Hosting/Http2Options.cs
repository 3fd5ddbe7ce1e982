namespace Freight.Server.Hosting;

/// <summary>
/// HTTP/2 flow control and framing of <c>freight serve</c> (Kestrel's <c>Limits.Http2</c>), on https:// and h2c://
/// addresses. The defaults are Kestrel's own; docs/results/2026-11-25-tls-h2.md has what was measured against them.
/// </summary>
public sealed class Http2Options
{
    /// <summary>Kestrel's bounds: a window is at least 64 KiB − 1 (RFC 9113 §6.9.2) and below 2^31.</summary>
    private const int MinWindowBytes = 65535;

    /// <summary>
    /// How many upload bytes, over all streams of a connection, a client may send before the server's
    /// WINDOW_UPDATE (RFC 9113 §6.9). Kestrel's default: 1 MiB.
    /// </summary>
    public int InitialConnectionWindowBytes { get; set; } = 1024 * 1024;

    /// <summary>The same per upload stream; at most <see cref="InitialConnectionWindowBytes"/>. Kestrel's default: 768 KiB.</summary>
    public int InitialStreamWindowBytes { get; set; } = 768 * 1024;

    /// <summary>
    /// The largest frame payload the server accepts (SETTINGS_MAX_FRAME_SIZE, RFC 9113 §6.5.2), 16 KiB to
    /// 16 MiB − 1. Kestrel's default: 16 KiB. The server's own DATA frames follow the client's setting.
    /// </summary>
    public int MaxFrameBytes { get; set; } = 16 * 1024;

    internal void Validate(List<string> errors)
    {
        if (InitialConnectionWindowBytes is < MinWindowBytes or > int.MaxValue - 1)
        {
            errors.Add($"Freight:Http2:InitialConnectionWindowBytes is {InitialConnectionWindowBytes}: use {MinWindowBytes} to {int.MaxValue - 1}.");
        }

        if (InitialStreamWindowBytes < MinWindowBytes || InitialStreamWindowBytes > InitialConnectionWindowBytes)
        {
            errors.Add($"Freight:Http2:InitialStreamWindowBytes is {InitialStreamWindowBytes}: use {MinWindowBytes} to InitialConnectionWindowBytes ({InitialConnectionWindowBytes}).");
        }

        if (MaxFrameBytes is < 16 * 1024 or > 16 * 1024 * 1024 - 1)
        {
            errors.Add($"Freight:Http2:MaxFrameBytes is {MaxFrameBytes}: use 16384 to 16777215.");
        }
    }
}
