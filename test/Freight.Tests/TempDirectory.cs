namespace Freight.Tests;

/// <summary>A fresh directory under the system temp folder, deleted with everything in it on dispose.</summary>
internal sealed class TempDirectory : IDisposable
{
    public TempDirectory()
    {
        Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "freight-tests-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(Path);
    }

    public string Path { get; }

    public string Combine(params string[] parts) => System.IO.Path.Combine([Path, .. parts]);

    /// <summary>Every file under the directory, as paths relative to it with '/' separators, sorted.</summary>
    public List<string> RelativeFiles()
    {
        var files = new List<string>();
        foreach (var file in Directory.EnumerateFiles(Path, "*", SearchOption.AllDirectories))
        {
            files.Add(System.IO.Path.GetRelativePath(Path, file).Replace(System.IO.Path.DirectorySeparatorChar, '/'));
        }

        files.Sort(StringComparer.Ordinal);
        return files;
    }

    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (IOException)
        {
            // Best effort: a leftover temp directory must not fail the test that made it.
        }
    }
}
