namespace Freight.Bench.Cli;

/// <summary>
/// Checks, before a long run, that its result file can be written: a path that cannot be found out only at the end,
/// after minutes of measuring, once lost a whole run's result to an unhandled exception.
/// </summary>
internal static class OutputPath
{
    /// <summary>Null when <paramref name="path"/> can be written (its folder is made); else why not.</summary>
    public static string? WhyNotWritable(string path)
    {
        try
        {
            var full = Path.GetFullPath(path);
            if (Directory.Exists(full))
            {
                return "it is a directory";
            }

            Directory.CreateDirectory(Path.GetDirectoryName(full)!);
            var existed = File.Exists(full);
            using (new FileStream(full, FileMode.OpenOrCreate, FileAccess.Write, FileShare.ReadWrite))
            {
            }

            if (!existed)
            {
                File.Delete(full);
            }

            return null;
        }
        catch (Exception error) when (error is IOException or UnauthorizedAccessException or NotSupportedException or ArgumentException)
        {
            return error.Message;
        }
    }

    /// <summary>Null when files can be written into the directory <paramref name="path"/> (it is made); else why not.</summary>
    public static string? WhyNotWritableDirectory(string path)
    {
        try
        {
            var full = Directory.CreateDirectory(path).FullName;
            using (new FileStream(Path.Combine(full, $".freight-write-check-{Guid.NewGuid():N}"), FileMode.CreateNew, FileAccess.Write, FileShare.None, 1, FileOptions.DeleteOnClose))
            {
            }

            return null;
        }
        catch (Exception error) when (error is IOException or UnauthorizedAccessException or NotSupportedException or ArgumentException)
        {
            return error.Message;
        }
    }
}
