using Freight.Storage;
using Microsoft.Extensions.Options;

namespace Freight.Server.Hosting;

/// <summary>
/// A directory <c>freight serve</c> is configured with but cannot use at start (the data directory, the files store's,
/// tus's): its volume full, read-only, or the path a file or through one. Refused as an invalid option is, in one line
/// that names the key, the directory and the option that chooses another (exit 2 before a port is bound), never a stack trace.
/// </summary>
internal static class UnusableDirectory
{
    /// <param name="key">The configuration key the directory comes from, e.g. <c>Freight:DataDirectory</c>.</param>
    /// <param name="option">How to give another on the command line, e.g. <c>--data-dir</c>.</param>
    /// <param name="directory">The directory as configured (relative to the working directory, or full).</param>
    /// <param name="failure">What creating or writing it threw: an <see cref="IOException"/> or <see cref="UnauthorizedAccessException"/>.</param>
    /// <param name="notFitting">What start-up writes there and a full volume has no room for, e.g. "the lab's files (1.1 MiB)"; null when it writes nothing.</param>
    public static OptionsValidationException Refuse(string key, string option, string directory, Exception failure, string? notFitting = null)
    {
        ArgumentNullException.ThrowIfNull(failure);
        var fullPath = Path.GetFullPath(directory);
        var problem = OutOfSpace.Is(failure)
            ? $"the volume of {fullPath} is full{(notFitting is null ? "" : $": {notFitting} do not fit")}. Free space on it, or choose another directory with {option} DIR."
            : FileInTheWay(fullPath) is { } file
                ? file == fullPath
                    ? $"{fullPath} is a file, not a directory: choose a directory with {option} DIR."
                    : $"{fullPath} cannot be created: {file} is a file, not a directory. Choose a directory with {option} DIR."
                : $"{fullPath} cannot be written ({failure.Message}): choose a directory the server may write to with {option} DIR.";
        return new OptionsValidationException(FreightServerOptions.SectionName, typeof(FreightServerOptions), [$"{key}: {problem}"]);
    }

    /// <summary>The path itself or the nearest existing folder above it when that is a file (mkdir's ENOTDIR, EEXIST); otherwise null.</summary>
    private static string? FileInTheWay(string fullPath)
    {
        for (var path = fullPath; path is not null; path = Path.GetDirectoryName(path))
        {
            if (File.Exists(path))
            {
                return path;
            }

            if (Directory.Exists(path))
            {
                return null;
            }
        }

        return null;
    }
}
