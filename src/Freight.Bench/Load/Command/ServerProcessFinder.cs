using System.Globalization;

namespace Freight.Bench.Load.Command;

/// <summary>
/// <c>--server-process NAME</c>: the one process, other than this one, whose name (<c>/proc/PID/comm</c>) is
/// NAME, or whose command line runs a program or .NET assembly of that name (<c>dotnet App.dll</c> is "App").
/// </summary>
public static class ServerProcessFinder
{
    /// <summary>The matching process ids, lowest first.</summary>
    public static IReadOnlyList<int> Find(string name)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        var found = new List<int>();
        if (!OperatingSystem.IsLinux())
        {
            return found;
        }

        foreach (var directory in Directory.EnumerateDirectories("/proc"))
        {
            if (!int.TryParse(Path.GetFileName(directory), NumberStyles.None, CultureInfo.InvariantCulture, out var pid) || pid == Environment.ProcessId)
            {
                continue;
            }

            try
            {
                if (File.ReadAllText(Path.Combine(directory, "comm")).TrimEnd('\n') == name || RunsProgram(File.ReadAllText(Path.Combine(directory, "cmdline")), name))
                {
                    found.Add(pid);
                }
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                // Exited while we looked, or not ours to read.
            }
        }

        found.Sort();
        return found;
    }

    // cmdline is NUL-separated: the program, then (for "dotnet App.dll") the assembly.
    private static bool RunsProgram(string commandLine, string name)
    {
        var args = commandLine.Split('\0', 3);
        for (var i = 0; i < Math.Min(2, args.Length); i++)
        {
            if (args[i].Length > 0 && Path.GetFileNameWithoutExtension(args[i]).Equals(name, StringComparison.Ordinal))
            {
                return true;
            }
        }

        return false;
    }
}
