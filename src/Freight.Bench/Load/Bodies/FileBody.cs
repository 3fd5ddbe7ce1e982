using Freight.Bench.Client;
using Freight.Bench.Load.Engine;

namespace Freight.Bench.Load.Bodies;

/// <summary>
/// <c>--file PATH</c>: the file's bytes, read anew (sequentially, no OS-level buffer of ours) for every
/// request. Its length is taken once; a file that changes during the run fails the requests it breaks.
/// </summary>
public sealed class FileBody : RequestBody
{
    private readonly string _path;

    public FileBody(string path)
    {
        _path = Path.GetFullPath(path);
        Length = new FileInfo(_path).Length;
    }

    public override long Length { get; }

    public override string ContentType => "application/octet-stream";

    internal override string? SendableFile => _path;

    public override async ValueTask WriteAsync(Stream destination, byte[] buffer, CancellationToken cancellationToken)
    {
        await using var file = FileHasher.OpenSequential(_path);
        long sent = 0;
        int read;
        while ((read = await file.ReadAsync(buffer, cancellationToken)) > 0)
        {
            sent += read;
            if (sent > Length)
            {
                break;
            }

            await destination.WriteAsync(buffer.AsMemory(0, read), cancellationToken);
        }

        if (sent != Length)
        {
            throw new IOException($"{_path} changed during the run: {sent} bytes read, {Length} declared.");
        }
    }
}
