using System.Text.Json;
using System.Text.Json.Serialization;

namespace Freight.Storage;

/// <summary>
/// The sidecar a file-system object's metadata lives in (<c>.{name}.freight-meta</c> beside the file). It
/// names the data file's length and modification time it was written for: a sidecar that does not match
/// the file (a crash between the two renames, a file replaced by hand) is ignored and the metadata derived
/// again from the content, so a served ETag belongs to the served bytes. One limit: a file replaced behind
/// the store's back with the same length AND the same modification time (<c>cp -p</c>, <c>rsync -t</c>, a
/// restore) keeps the old sidecar; delete the <c>.freight-meta</c> files after such a copy. The store's own
/// writes always get a fresh time.
/// </summary>
internal sealed record FileSystemMetadata(
    long Length,
    long LastWriteTicks,
    string ETag,
    string? ContentType,
    Dictionary<string, byte[]>? Digests)
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

    public bool Describes(long length, DateTime lastWriteUtc) => Length == length && LastWriteTicks == lastWriteUtc.Ticks;

    public ObjectInfo ToInfo(string key, DateTime lastWriteUtc) =>
        new(key, Length, new DateTimeOffset(lastWriteUtc, TimeSpan.Zero), ETag, ContentType, Digests ?? []);
}

[JsonSerializable(typeof(FileSystemMetadata))]
[JsonSourceGenerationOptions(JsonSerializerDefaults.Web)]
internal sealed partial class FileSystemMetadataContext : JsonSerializerContext;
