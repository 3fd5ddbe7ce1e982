namespace Freight.Bench.Tests;

/// <summary>A fresh directory under the temp path for one test, its name starting with <c>prefix</c>; deleted with everything in it after.</summary>
internal sealed class TemporaryDirectory(string prefix) : IDisposable
{
    public string Path { get; } = Directory.CreateTempSubdirectory(prefix).FullName;

    /// <summary>The full path of <paramref name="name"/> in the directory.</summary>
    public string Combine(string name) => System.IO.Path.Combine(Path, name);

    /// <summary>What the directory holds (full paths), in ordinal order.</summary>
    public string[] Entries() => [.. Directory.GetFileSystemEntries(Path).Order(StringComparer.Ordinal)];

    public void Dispose() => Directory.Delete(Path, recursive: true);
}
