namespace Freight.Telemetry;

/// <summary>The values of <see cref="FreightTelemetry.RefusalReasonTag"/>: why an upload was refused.</summary>
internal static class UploadRefusal
{
    public const string TooLarge = "too_large";
    public const string DigestMismatch = "digest_mismatch";
    public const string Precondition = "precondition";
    public const string Conflict = "conflict";
    public const string OutOfSpace = "out_of_space";
    public const string BadRequest = "bad_request";
    public const string Quota = "quota";
    public const string Unauthorized = "unauthorized";
    public const string Forbidden = "forbidden";
}
