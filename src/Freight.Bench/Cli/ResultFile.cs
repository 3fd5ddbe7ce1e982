using System.Text;

namespace Freight.Bench.Cli;

/// <summary>
/// Writes a result file whole or not at all: into a temporary file beside it, then renamed over it. A write that
/// fails (a full disk, Ctrl+C) leaves the file that was there, where writing in place had truncated it first: a
/// Ctrl+C once left a user's earlier result at 0 bytes. Not cancellable: a run's result is written once it is measured.
/// </summary>
internal static class ResultFile
{
    public static async Task WriteAsync(string path, Func<Stream, Task> write)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        ArgumentNullException.ThrowIfNull(write);
        var full = Path.GetFullPath(path);

        // A short fixed-length name, whatever the target's: a name near the file system's limit has no room for a suffix.
        var temporary = Path.Combine(Path.GetDirectoryName(full)!, $".freight-{Guid.NewGuid():N}.tmp");
        try
        {
            await using (var file = new FileStream(temporary, FileMode.CreateNew, FileAccess.Write, FileShare.None, 64 * 1024, FileOptions.Asynchronous))
            {
                await write(file);
            }

            File.Move(temporary, full, overwrite: true);
        }
        catch
        {
            File.Delete(temporary);
            throw;
        }
    }

    /// <summary>
    /// Writes a set of files (a report's CSV tables, its SVG charts) once every one of them is known to be writable, so
    /// a name the file system refuses stops the set before any of it is written, not after part of it.
    /// </summary>
    public static async Task WriteAllAsync(IReadOnlyList<KeyValuePair<string, string>> files)
    {
        ArgumentNullException.ThrowIfNull(files);
        foreach (var (path, _) in files)
        {
            if (OutputPath.WhyNotWritable(path) is { } why)
            {
                throw new IOException($"{path} cannot be written: {why}");
            }
        }

        foreach (var (path, text) in files)
        {
            await WriteTextAsync(path, text);
        }
    }

    /// <summary>Writes <paramref name="text"/> as UTF-8 without a byte order mark, as File.WriteAllText does.</summary>
    public static Task WriteTextAsync(string path, string text) =>
        WriteAsync(path, file => file.WriteAsync(Encoding.UTF8.GetBytes(text)).AsTask());
}
