using System.Diagnostics;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// A test that needs a tmpfs of its own (<see cref="Tmpfs"/>): skipped, saying why, where one cannot be
/// mounted (not root, or a container without the right to mount). CI runs as root and mounts it.
/// </summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class TmpfsFactAttribute : FactAttribute
{
    private static readonly Lazy<string?> s_whyNot = new(ProbeMount);

    public TmpfsFactAttribute()
    {
        if (s_whyNot.Value is { } reason)
        {
            Skip = reason;
        }
    }

    /// <summary>Whether a tmpfs can be mounted here.</summary>
    public static bool Available => s_whyNot.Value is null;

    /// <summary>Mounts and unmounts a tiny tmpfs once; null when that works, else why not.</summary>
    private static string? ProbeMount()
    {
        if (!OperatingSystem.IsLinux())
        {
            return "disk-full tests mount a tmpfs: Linux only";
        }

        if (!Environment.IsPrivilegedProcess)
        {
            return "disk-full tests mount a tmpfs, which needs root (CI runs the tests as root)";
        }

        var probe = Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N") + "-probe");
        Directory.CreateDirectory(probe);
        try
        {
            Run("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", probe);
            Run("umount", probe);
            return null;
        }
        catch (Exception failed) when (failed is InvalidOperationException or System.ComponentModel.Win32Exception)
        {
            return $"disk-full tests need to mount a tmpfs, which failed here: {failed.Message}";
        }
        finally
        {
            Directory.Delete(probe);
        }
    }

    /// <summary>Runs a command (mount, umount: milliseconds), throwing with its error output when it fails.</summary>
    internal static void Run(string command, params string[] arguments)
    {
        var start = new ProcessStartInfo(command) { RedirectStandardError = true, RedirectStandardOutput = true, UseShellExecute = false };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start)!;
        var error = process.StandardError.ReadToEnd();
        process.WaitForExit();
        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException($"{command} {string.Join(' ', arguments)}: exit {process.ExitCode}: {error.Trim()}");
        }
    }
}
