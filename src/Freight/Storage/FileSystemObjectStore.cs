namespace Freight.Storage;

/// <summary>
/// Stores objects as files under a root directory. A write goes to a hidden temp file in the
/// target's own directory (same file system, so the final rename is atomic) and is renamed into
/// place on commit; an abort deletes the temp file.
/// </summary>
public sealed class FileSystemObjectStore : IObjectStore
{
    /// <summary>Suffix of in-progress writes; files with it are never served and are swept at start.</summary>
    public const string TempSuffix = ".freight-tmp";

    private readonly FileSystemStoreOptions _options;

    public FileSystemObjectStore(FileSystemStoreOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        _options = options;
        RootDirectory = Path.GetFullPath(options.RootDirectory);
        Directory.CreateDirectory(RootDirectory);
    }

    /// <summary>The absolute root directory.</summary>
    public string RootDirectory { get; }

    /// <summary>Maps a key (already validated, '/'-separated, relative) to its absolute path.</summary>
    public string GetPath(string key) => Path.Combine(RootDirectory, key.Replace('/', Path.DirectorySeparatorChar));

    public ValueTask<IObjectWriter> BeginWriteAsync(string key, long? expectedLength = null, CancellationToken cancellationToken = default)
    {
        var path = GetPath(key);
        var directory = Path.GetDirectoryName(path)!;
        Directory.CreateDirectory(directory);
        var tempPath = Path.Combine(directory, $".{Path.GetFileName(path)}.{Guid.NewGuid():N}{TempSuffix}");
        IObjectWriter writer = new FileSystemObjectWriter(key, path, tempPath, _options.FlushToDisk, expectedLength ?? 0);
        return ValueTask.FromResult(writer);
    }

    /// <summary>Deletes temp files left by writes that a crash interrupted. Returns how many it removed.</summary>
    public int DeleteAbandonedTempFiles()
    {
        var removed = 0;
        foreach (var file in Directory.EnumerateFiles(RootDirectory, "*" + TempSuffix, SearchOption.AllDirectories))
        {
            File.Delete(file);
            removed++;
        }

        return removed;
    }
}
