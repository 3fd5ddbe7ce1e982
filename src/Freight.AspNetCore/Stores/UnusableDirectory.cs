using Freight.Storage;
using Microsoft.Extensions.Options;

namespace Freight.AspNetCore.Stores;

/// <summary>
/// A directory a file-system store is configured with but cannot make or open at start (and <c>freight serve</c>'s
/// data directory, which it writes the lab's files into): the path a file or through one, its volume read-only or
/// full, no permission. Refused as an invalid option is, in one message that names the setting, the directory, why,
/// and how to choose another; never the raw <see cref="IOException"/> with its stack, and never at the first request.
/// </summary>
internal static class UnusableDirectory
{
    /// <summary>What making, opening or writing a directory throws when it cannot be used.</summary>
    public static bool Is(Exception failure) => failure is IOException or UnauthorizedAccessException;

    /// <summary>
    /// Opens <paramref name="directory"/> with <paramref name="open"/> (which makes it when missing); one that cannot
    /// be made or opened is refused with an <see cref="OptionsValidationException"/> of <see cref="FreightFileSystemOptions"/>
    /// saying why (<see cref="Describe"/>).
    /// </summary>
    public static T Open<T>(DirectorySetting setting, string directory, Func<string, T> open)
    {
        try
        {
            return open(directory);
        }
        catch (Exception unusable) when (Is(unusable))
        {
            throw new OptionsValidationException(Options.DefaultName, typeof(FreightFileSystemOptions), [Describe(setting, directory, unusable)]);
        }
    }

    /// <summary>One line: <c>KEY: DIRECTORY … why. How to choose another.</c></summary>
    /// <param name="setting">The setting the directory comes from, and how another is given.</param>
    /// <param name="directory">The directory as configured (relative to the working directory, or full).</param>
    /// <param name="failure">What making or writing it threw: an <see cref="IOException"/> or <see cref="UnauthorizedAccessException"/>.</param>
    /// <param name="notFitting">What start-up writes there and a full volume has no room for, e.g. "the lab's files (1.1 MiB)"; null when it writes nothing.</param>
    public static string Describe(DirectorySetting setting, string directory, Exception failure, string? notFitting = null)
    {
        ArgumentNullException.ThrowIfNull(setting);
        ArgumentNullException.ThrowIfNull(failure);
        var fullPath = Path.GetFullPath(directory);
        var choose = setting.ChooseWith;
        var problem = OutOfSpace.Is(failure)
            ? $"the volume of {fullPath} is full{(notFitting is null ? "" : $": {notFitting} do not fit")}. Free space on it, or choose another directory {choose}."
            : FileInTheWay(fullPath) is { } file
                ? file == fullPath
                    ? $"{fullPath} is a file, not a directory: choose a directory {choose}."
                    : $"{fullPath} cannot be created: {file} is a file, not a directory. Choose a directory {choose}."
                : $"{fullPath} cannot be written ({failure.Message}): choose a directory {setting.Writer} may write to {choose}.";
        return $"{setting.Key}: {problem}";
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
