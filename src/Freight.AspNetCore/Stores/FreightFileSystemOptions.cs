namespace Freight.AspNetCore.Stores;

/// <summary>
/// The file-system store (<c>AddFreightFileSystemStore</c>): where files and unfinished tus uploads live on disk,
/// bound from <c>Freight:FileSystem</c> unless another section is named.
/// </summary>
public sealed class FreightFileSystemOptions
{
    /// <summary>The configuration section bound when none is named.</summary>
    public const string SectionName = "Freight:FileSystem";

    /// <summary>
    /// The files' root directory (created if missing, when the host starts; one that cannot be, a file or below one,
    /// read-only, stops the host with an <see cref="Microsoft.Extensions.Options.OptionsValidationException"/> naming
    /// it; a relative path is taken from the working directory); keys are paths below it, contained (no symlink leaves it).
    /// </summary>
    public string RootDirectory { get; set; } = "";

    /// <summary>Where unfinished tus uploads wait; empty: <c>{RootDirectory}-uploads</c>, beside the root, never inside it.</summary>
    public string UploadsDirectory { get; set; } = "";

    /// <summary>fsync each file before it is renamed into place (slower; survives a power cut).</summary>
    public bool FlushToDisk { get; set; }

    /// <summary>How a <see cref="RootDirectory"/> that cannot be made is named; null: its key under the bound section (serve names its own option).</summary>
    internal DirectorySetting? RootDirectorySetting { get; set; }

    /// <summary>How an <see cref="UploadsDirectory"/> that cannot be made is named; null: its key under the bound section.</summary>
    internal DirectorySetting? UploadsDirectorySetting { get; set; }

    /// <summary>The uploads directory in effect.</summary>
    internal string EffectiveUploadsDirectory =>
        string.IsNullOrEmpty(UploadsDirectory) ? Path.TrimEndingDirectorySeparator(Path.GetFullPath(RootDirectory)) + "-uploads" : UploadsDirectory;

    internal void Validate(string section, List<string> errors)
    {
        if (string.IsNullOrWhiteSpace(RootDirectory))
        {
            errors.Add($"{section}:RootDirectory is empty: give the directory the files API may keep files in.");
        }
    }
}
