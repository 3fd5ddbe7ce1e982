using System.Net.Http.Headers;

namespace Freight.Bench.Client;

/// <summary>
/// The files of a get in progress: <c>FILE.partial</c>, the bytes received so far, and
/// <c>FILE.partial.etag</c>, the strong ETag of the representation they are a prefix of. Together they let a
/// later get ask for only the rest (RFC 9110 §14.2 Range, §13.1.5 If-Range).
/// </summary>
public sealed class PartialDownload
{
    public PartialDownload(string file)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(file);
        FilePath = file;
        PartialPath = file + ".partial";
        ETagPath = file + ".partial.etag";
    }

    /// <summary>Where the finished download goes.</summary>
    public string FilePath { get; }

    public string PartialPath { get; }

    public string ETagPath { get; }

    /// <summary>
    /// Where a previous get stopped, if it can be resumed: a non-empty partial file and a sidecar holding a
    /// strong ETag. If-Range needs a strong validator (RFC 9110 §13.1.5): a weak one could join the bytes
    /// of two different representations.
    /// </summary>
    public bool TryGetResumePoint(out long offset, out EntityTagHeaderValue? etag)
    {
        offset = 0;
        etag = null;
        if (!File.Exists(PartialPath) || !File.Exists(ETagPath))
        {
            return false;
        }

        var length = new FileInfo(PartialPath).Length;
        if (length == 0 || !EntityTagHeaderValue.TryParse(File.ReadAllText(ETagPath).Trim(), out var parsed) || parsed.IsWeak)
        {
            return false;
        }

        offset = length;
        etag = parsed;
        return true;
    }

    /// <summary>
    /// Opens the partial file, created if missing, locked against a second get of the same file (a
    /// FileShare.None open takes an advisory lock on Unix).
    /// </summary>
    public FileStream Open() =>
        new(PartialPath, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None, bufferSize: 0, FileOptions.Asynchronous);

    /// <summary>
    /// Remembers the ETag of what the partial file now holds, or forgets it when the server gave none we can
    /// resume with (absent or weak): the next get then starts over.
    /// </summary>
    public void RememberETag(EntityTagHeaderValue? etag)
    {
        if (etag is { IsWeak: false })
        {
            File.WriteAllText(ETagPath, etag.ToString());
        }
        else
        {
            File.Delete(ETagPath);
        }
    }

    /// <summary>Whether a later get could resume from what is on disk now.</summary>
    public bool CanResume => TryGetResumePoint(out _, out _);

    /// <summary>Makes the partial file the file: an atomic rename on one file system, replacing any old FILE.</summary>
    public void Complete()
    {
        File.Move(PartialPath, FilePath, overwrite: true);
        File.Delete(ETagPath);
    }

    /// <summary>Deletes the partial file and its sidecar: bytes that failed verification are worth nothing.</summary>
    public void Discard()
    {
        File.Delete(PartialPath);
        File.Delete(ETagPath);
    }
}
