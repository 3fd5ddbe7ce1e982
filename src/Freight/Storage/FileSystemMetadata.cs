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

    // Far above any real sidecar (a few hundred bytes): a bigger one is not Freight's and is not read.
    private const int MaxBytes = 64 * 1024;

    /// <summary>The sidecar's name for <paramref name="key"/>: <c>.{name}.freight-meta</c> in the key's folder.</summary>
    public static string NameFor(string key)
    {
        var slash = key.LastIndexOf('/');
        return string.Concat(key.AsSpan(0, slash + 1), ".", key.AsSpan(slash + 1), Suffix);
    }

    public static FileSystemMetadata? TryRead(ContainedDirectory root, string key)
    {
        try
        {
            using var handle = root.TryOpenFile(NameFor(key), FileAccess.Read);
            var length = handle is null ? 0 : RandomAccess.GetLength(handle);
            if (handle is null || length is 0 or > MaxBytes)
            {
                return null;
            }

            var bytes = new byte[length];
            var read = RandomAccess.Read(handle, bytes, 0);
            return JsonSerializer.Deserialize(bytes.AsSpan(0, read), FileSystemMetadataContext.Default.FileSystemMetadata);
        }
        catch (Exception unreadable) when (unreadable is IOException or UnauthorizedAccessException or JsonException)
        {
            // Missing or torn: the caller derives the metadata again.
            return null;
        }
    }

    /// <summary>Writes the sidecar for <paramref name="key"/> atomically (temp file, rename).</summary>
    public void Write(ContainedDirectory root, string key)
    {
        var temp = FileSystemObjectStore.TempName(key.LastIndexOf('/') is var slash and >= 0 ? key[..slash] : "");
        try
        {
            using (var handle = root.CreateNew(temp))
            {
                RandomAccess.Write(handle, JsonSerializer.SerializeToUtf8Bytes(this, FileSystemMetadataContext.Default.FileSystemMetadata), 0);
            }

            root.Rename(temp, NameFor(key));
        }
        catch
        {
            root.Delete(temp);
            throw;
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
