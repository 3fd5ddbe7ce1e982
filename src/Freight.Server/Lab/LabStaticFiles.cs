using Freight.Lab.Payload;
using Freight.Server.Hosting;
using Microsoft.Extensions.Options;

namespace Freight.Server.Lab;

/// <summary>
/// The files of study 4 (4 KiB, 16 KiB, 128 KiB, 1 MiB of the deterministic payload), written once at
/// start into <c>{data}/lab/static/{size}.bin</c>, so every static variant, and nginx in the bench, serves
/// the same bytes from the same directory.
/// </summary>
public sealed class LabStaticFiles
{
    /// <summary>The sizes study 4 measured, plus 1 MiB.</summary>
    public static readonly IReadOnlyList<long> Sizes = [4 * 1024, 16 * 1024, 128 * 1024, 1024 * 1024];

    /// <summary>The total of <see cref="Sizes"/>: the room the files need.</summary>
    public static long TotalBytes => Sizes.Sum();

    public LabStaticFiles(IOptions<FreightServerOptions> options)
    {
        ArgumentNullException.ThrowIfNull(options);
        Directory = Path.Combine(Path.GetFullPath(options.Value.DataDirectory), "lab", "static");
    }

    /// <summary>The directory the files are in (a full path).</summary>
    public string Directory { get; }

    /// <summary>The file name of the payload of <paramref name="size"/> bytes.</summary>
    public static string FileName(long size) => FormattableString.Invariant($"{size}.bin");

    /// <summary>
    /// Writes every file that is missing or has the wrong length (atomically, so a reader never sees part of one). All
    /// or nothing: when one cannot be written (a full volume, a read-only one, a path through a file) the files and
    /// folders this call made are removed before the error goes on, so a start that fails leaves nothing of the lab's.
    /// </summary>
    public void EnsureCreated()
    {
        var madeFolders = MissingFolders();
        var written = new List<string>();
        try
        {
            foreach (var size in Sizes)
            {
                var path = Path.Combine(Directory, FileName(size));
                if (!File.Exists(path) || new FileInfo(path).Length != size)
                {
                    DeterministicPayload.WriteFile(path, size);
                    written.Add(path);
                }
            }
        }
        catch (Exception failed) when (failed is IOException or UnauthorizedAccessException)
        {
            written.ForEach(File.Delete);
            foreach (var folder in madeFolders)
            {
                if (System.IO.Directory.Exists(folder) && !System.IO.Directory.EnumerateFileSystemEntries(folder).Any())
                {
                    System.IO.Directory.Delete(folder);
                }
            }

            throw;
        }
    }

    /// <summary>The directory and those above it that do not exist yet (a write will make them), deepest first.</summary>
    private List<string> MissingFolders()
    {
        var missing = new List<string>();
        for (var folder = Directory; folder is not null && !System.IO.Directory.Exists(folder); folder = Path.GetDirectoryName(folder))
        {
            missing.Add(folder);
        }

        return missing;
    }

    /// <summary>
    /// The full path of <paramref name="name"/> in the directory, or null when the name could leave it or
    /// name something other than a plain file name (the lab takes one path segment).
    /// </summary>
    public string? PathOf(string name)
    {
        if (string.IsNullOrEmpty(name) || name.Length > 255 || name is "." or ".." || name.AsSpan().IndexOfAny('/', '\\', '\0') >= 0)
        {
            return null;
        }

        return string.Concat(Directory, "/", name);
    }
}
