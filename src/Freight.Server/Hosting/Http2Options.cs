namespace Freight.Server.Hosting;

/// <summary>
/// HTTP/2 flow control and framing of <c>freight serve</c> (Kestrel's <c>Limits.Http2</c>), on https:// and h2c://
/// addresses. docs/results/2026-11-25-tls-h2.md has what was measured.
/// </summary>
public sealed class Http2Options
{
    /// <summary>Kestrel's bounds: a window is at least 64 KiB − 1 (RFC 9113 §6.9.2) and below 2^31.</summary>
    private const int MinWindowBytes = 65535;

    /// <summary>
    /// How many upload bytes, over all streams of a connection, a client may send before the server's
    /// WINDOW_UPDATE (RFC 9113 §6.9), and so the most unread body the server buffers per connection.
    /// 16 MiB (Kestrel's default: 1 MiB): with 16 MiB windows an h2 upload over TLS cost the server a median
    /// 1.56 s/GiB of CPU against 2.06 with Kestrel's 1 MiB / 768 KiB (5 interleaved rounds of 2 × 256 MiB
    /// curl POSTs, loaded 2-core machine); 4 MiB was not tried.
    /// </summary>
    public int InitialConnectionWindowBytes { get; set; } = 16 * 1024 * 1024;

    /// <summary>The same per upload stream: 16 MiB (Kestrel's default: 768 KiB), measured with the connection's.</summary>
    public int InitialStreamWindowBytes { get; set; } = 16 * 1024 * 1024;

    /// <summary>
    /// The largest frame payload the server accepts (SETTINGS_MAX_FRAME_SIZE, RFC 9113 §6.5.2), 16 KiB to
    /// 16 MiB − 1. Kestrel's default, 16 KiB, kept: 64 KiB on top of 16 MiB windows did not lower the h2
    /// upload's CPU (median 1.70 s/GiB against 1.56, same runs). The server's own DATA frames follow the client's setting.
    /// </summary>
    public int MaxFrameBytes { get; set; } = 16 * 1024;

    internal void Validate(List<string> errors)
    {
        if (InitialConnectionWindowBytes is < MinWindowBytes or > int.MaxValue - 1)
        {
            errors.Add($"Freight:Http2:InitialConnectionWindowBytes is {InitialConnectionWindowBytes}: use {MinWindowBytes} to {int.MaxValue - 1}.");
        }

        if (InitialStreamWindowBytes is < MinWindowBytes or > int.MaxValue - 1)
        {
            errors.Add($"Freight:Http2:InitialStreamWindowBytes is {InitialStreamWindowBytes}: use {MinWindowBytes} to {int.MaxValue - 1}.");
        }

        if (MaxFrameBytes is < 16 * 1024 or > 16 * 1024 * 1024 - 1)
        {
            errors.Add($"Freight:Http2:MaxFrameBytes is {MaxFrameBytes}: use 16384 to 16777215.");
        }
    }
}
