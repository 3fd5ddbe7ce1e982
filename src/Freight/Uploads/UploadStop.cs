namespace Freight.Uploads;

/// <summary>
/// A host's request to end the uploads in flight (its stop), which it makes by cancelling their body reads
/// (<c>PipeReader.CancelPendingRead</c>). Set, a canceled read ends an upload; unset, a canceled read is not the
/// app's and is read past (<see cref="UploadBodyReader"/>).
/// </summary>
internal sealed class UploadStop
{
    private volatile bool _requested;

    public bool Requested => _requested;

    public void Request() => _requested = true;
}
