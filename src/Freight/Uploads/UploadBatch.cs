namespace Freight.Uploads;

/// <summary>How much of a request body an upload loop gathers before hashing and writing it.</summary>
internal static class UploadBatch
{
    /// <summary>
    /// Bytes to gather before hashing and writing a batch: fewer, larger writes (one pwritev per batch
    /// instead of one per transport block). Must stay below Kestrel's MaxRequestBufferSize (1 MiB by
    /// default), past which Kestrel stops reading the socket, and below HTTP/2's per-stream window (Kestrel's
    /// InitialStreamWindowSize, 768 KiB by default), which reopens only as bytes are consumed. 64 KiB, 256 KiB and 768 KiB measured within
    /// run-to-run noise of each other (`freight bench --quick --runs 5 --filter upload/freight`).
    /// </summary>
    public const int Bytes = 256 * 1024;
}
