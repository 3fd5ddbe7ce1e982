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

    public bool Describes(long length, DateTime lastWriteUtc) => Length == length && LastWriteTicks == lastWriteUtc.Ticks;

    public ObjectInfo ToInfo(string key, DateTime lastWriteUtc) =>
        new(key, Length, new DateTimeOffset(lastWriteUtc, TimeSpan.Zero), ETag, ContentType, Digests ?? []);
}

[JsonSerializable(typeof(FileSystemMetadata))]
[JsonSourceGenerationOptions(JsonSerializerDefaults.Web)]
internal sealed partial class FileSystemMetadataContext : JsonSerializerContext;
