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

    public LabStaticFiles(IOptions<FreightServerOptions> options)
    {
        ArgumentNullException.ThrowIfNull(options);
        Directory = Path.Combine(Path.GetFullPath(options.Value.DataDirectory), "lab", "static");
    }

    /// <summary>The directory the files are in (a full path).</summary>
    public string Directory { get; }

    /// <summary>The file name of the payload of <paramref name="size"/> bytes.</summary>
    public static string FileName(long size) => FormattableString.Invariant($"{size}.bin");

    /// <summary>Writes every file that is missing or has the wrong length (atomically, so a reader never sees part of one).</summary>
    public void EnsureCreated()
    {
        foreach (var size in Sizes)
        {
            var path = Path.Combine(Directory, FileName(size));
            if (!File.Exists(path) || new FileInfo(path).Length != size)
            {
                DeterministicPayload.WriteFile(path, size);
            }
        }
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
