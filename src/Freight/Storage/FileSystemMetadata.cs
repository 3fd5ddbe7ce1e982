using System.Text.Json;
using System.Text.Json.Serialization;

namespace Freight.Storage;

/// <summary>
/// The sidecar a file-system object's metadata lives in (<c>.{name}.freight-meta</c> beside the file). It names
/// the exact version of the data file it was written for (<see cref="FileVersion"/>: inode, length, modification
/// time) and is believed only for that version: a reader pairs the bytes of its open handle with a sidecar
/// naming that handle's inode, so two commits landing in the same clock tick, a crash between the sidecar's
/// rename and the data's, or a file replaced by hand never lend one version's ETag, content type or digests to
/// another. A sidecar naming anything else is settled under the key's lock, from the bytes: their ETag is
/// computed, and a sidecar with that same ETag (one written before sidecars named inodes, or a data directory
/// copied elsewhere, which gives every file a new inode) keeps its content type and digests and is rewritten
/// to name this version; otherwise the metadata is derived again from the content. Limits: a file rewritten
/// in place (same inode) with the same length and modification time keeps its sidecar (delete the
/// <c>.freight-meta</c> files after such a copy); where there is no inode to read (<see cref="FileVersion"/>:
/// not Linux) a version is length and modification time alone, and a reader may pair a version with the
/// sidecar of another of the same length committed in the same clock tick.
/// </summary>
internal sealed record FileSystemMetadata(
    long Length,
    long LastWriteTicks,
    string ETag,
    string? ContentType,
    Dictionary<string, byte[]>? Digests,
    ulong? Inode)
{
    public const string Suffix = ".freight-meta";

    public static string PathFor(string dataPath) =>
        Path.Combine(Path.GetDirectoryName(dataPath)!, "." + Path.GetFileName(dataPath) + Suffix);

    public static FileSystemMetadata? TryRead(string path)
    {
        try
        {
            return JsonSerializer.Deserialize(File.ReadAllBytes(path), FileSystemMetadataContext.Default.FileSystemMetadata);
        }
        catch (Exception unreadable) when (unreadable is IOException or UnauthorizedAccessException or JsonException)
        {
            // Missing or torn: the caller derives the metadata again.
            return null;
        }
    }

    /// <summary>Writes the sidecar for <paramref name="dataPath"/> atomically (temp file, rename).</summary>
    public void Write(string dataPath)
    {
        var path = PathFor(dataPath);
        var temp = Path.Combine(Path.GetDirectoryName(path)!, $".{Guid.NewGuid():N}{FileSystemObjectStore.TempSuffix}");
        try
        {
            File.WriteAllBytes(temp, JsonSerializer.SerializeToUtf8Bytes(this, FileSystemMetadataContext.Default.FileSystemMetadata));
            File.Move(temp, path, overwrite: true);
        }
        finally
        {
            File.Delete(temp);
        }
    }

    /// <summary>Metadata for <paramref name="version"/> of the data file.</summary>
    public static FileSystemMetadata For(FileVersion version, string etag, string? contentType, Dictionary<string, byte[]>? digests) =>
        new(version.Length, version.LastWriteUtc.Ticks, etag, contentType, digests, version.Inode);

    /// <summary>Written for exactly <paramref name="version"/>: a sidecar without an inode (an older one) describes no version that has one.</summary>
    public bool Describes(FileVersion version) =>
        Inode == version.Inode && Length == version.Length && LastWriteTicks == version.LastWriteUtc.Ticks;

    public ObjectInfo ToInfo(string key) =>
        new(key, Length, new DateTimeOffset(LastWriteTicks, TimeSpan.Zero), ETag, ContentType, Digests ?? []);
}

[JsonSerializable(typeof(FileSystemMetadata))]
[JsonSourceGenerationOptions(JsonSerializerDefaults.Web)]
internal sealed partial class FileSystemMetadataContext : JsonSerializerContext;
