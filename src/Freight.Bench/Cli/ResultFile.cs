using System.Diagnostics;
using System.Security.Cryptography;
using System.Text;
using System.Text.RegularExpressions;

namespace Freight.Bench.Cli;

/// <summary>
/// Writes a result file whole or not at all: into a temporary file beside it, then renamed over it. A write that
/// fails (a full disk, Ctrl+C) leaves the file that was there, where writing in place had truncated it first: a
/// Ctrl+C once left a user's earlier result at 0 bytes. Not cancellable: a run's result is written once it is measured.
/// A writer killed before its rename (SIGKILL, a power cut) leaves its temporary behind; the next write into the folder
/// removes it (<see cref="RemoveLeftovers"/>).
/// </summary>
internal static partial class ResultFile
{
    // The temporary is ".NAME~freight-PID-HOST-RANDOM.tmp": NAME says whose it is in a listing, PID and HOST whether its
    // writer still runs. NAME is cut to 100 bytes of UTF-8, so the whole stays ~150, under the file system's 255 a
    // target's own name may reach.
    private const int NameBytesKept = 100;

    // A hash of this machine's name: a folder shared with another machine holds temporaries whose processes are not ours.
    private static readonly string Host = Convert.ToHexStringLower(SHA256.HashData(Encoding.UTF8.GetBytes(Environment.MachineName))[..4]);

    public static async Task WriteAsync(string path, Func<Stream, Task> write)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        ArgumentNullException.ThrowIfNull(write);
        var full = Path.GetFullPath(path);
        var directory = Path.GetDirectoryName(full)!;
        RemoveLeftovers(directory);

        var temporary = Path.Combine(directory, $".{Cut(Path.GetFileName(full))}~freight-{Environment.ProcessId}-{Host}-{Convert.ToHexStringLower(RandomNumberGenerator.GetBytes(6))}.tmp");
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

    /// <summary>
    /// Removes the temporaries in <paramref name="directory"/> whose writers were killed: made on this machine by a
    /// process that no longer runs. Never one of a writer still running (another freight writing into the folder, or
    /// this process), whose rename would then fail, nor another machine's. A PID reused since leaves its temporary until
    /// that process ends: litter kept, never a write lost. Best effort: a write never fails for want of tidying.
    /// </summary>
    private static void RemoveLeftovers(string directory)
    {
        try
        {
            foreach (var path in Directory.EnumerateFiles(directory, "*.tmp"))
            {
                if (Temporary().Match(Path.GetFileName(path)) is { Success: true } match
                    && match.Groups["host"].Value == Host
                    && int.TryParse(match.Groups["pid"].ValueSpan, out var processId)
                    && processId != Environment.ProcessId
                    && !IsRunning(processId))
                {
                    Delete(path);
                }
            }
        }
        catch (Exception failed) when (failed is IOException or UnauthorizedAccessException)
        {
            // An unreadable folder fails the write itself, with its own message.
        }
    }

    private static void Delete(string leftover)
    {
        try
        {
            File.Delete(leftover);
        }
        catch (Exception failed) when (failed is IOException or UnauthorizedAccessException)
        {
            // Another user's, in a folder that lets only its owner remove it: theirs to tidy.
        }
    }

    private static bool IsRunning(int processId)
    {
        try
        {
            using var process = Process.GetProcessById(processId);
            return true;
        }
        catch (ArgumentException)
        {
            return false;
        }
    }

    /// <summary><paramref name="name"/>'s first <see cref="NameBytesKept"/> bytes of UTF-8, whole characters only.</summary>
    private static string Cut(string name)
    {
        var bytes = 0;
        var chars = 0;
        foreach (var rune in name.EnumerateRunes())
        {
            bytes += rune.Utf8SequenceLength;
            if (bytes > NameBytesKept)
            {
                break;
            }

            chars += rune.Utf16SequenceLength;
        }

        return name[..chars];
    }

    [GeneratedRegex(@"\A\..*~freight-(?<pid>[0-9]{1,10})-(?<host>[0-9a-f]{8})-[0-9a-f]{12}\.tmp\z", RegexOptions.Singleline | RegexOptions.CultureInvariant)]
    private static partial Regex Temporary();
}
