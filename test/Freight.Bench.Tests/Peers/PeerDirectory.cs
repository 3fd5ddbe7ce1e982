namespace Freight.Bench.Tests.Peers;

/// <summary>A fresh directory under the temp path for one test's nginx site (root, work, put), deleted after.</summary>
internal sealed class PeerDirectory : IDisposable
{
    public PeerDirectory() => Path = Directory.CreateTempSubdirectory("freight-peer-test-").FullName;

    public string Path { get; }

    public string Root => Directory.CreateDirectory(System.IO.Path.Combine(Path, "root")).FullName;

    public string Work => System.IO.Path.Combine(Path, "work");

    /// <summary>Writes <paramref name="length"/> deterministic pseudo-random bytes to root/<paramref name="name"/> and returns them.</summary>
    public byte[] WriteFile(string name, int length)
    {
        var bytes = new byte[length];
        new Random(length).NextBytes(bytes);
        File.WriteAllBytes(System.IO.Path.Combine(Root, name), bytes);
        return bytes;
    }

    public void Dispose() => Directory.Delete(Path, recursive: true);
}
