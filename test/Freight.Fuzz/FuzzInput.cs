using System.Text;

namespace Freight.Fuzz;

/// <summary>Turns AFL++'s bytes into what the parsers take.</summary>
internal static class FuzzInput
{
    public static byte[] ReadAll(Stream stream)
    {
        using var copy = new MemoryStream();
        stream.CopyTo(copy);
        return copy.ToArray();
    }

    /// <summary>One char per byte (ISO-8859-1), as Kestrel hands over header bytes: every byte reaches the parser.</summary>
    public static string Latin1(ReadOnlySpan<byte> bytes) => Encoding.Latin1.GetString(bytes);
}

/// <summary>Runs a harness once per file, outside AFL++: to reproduce a crash or check a corpus.</summary>
internal static class FuzzReplay
{
    public static int Run(IFuzzTarget target, ReadOnlySpan<string> paths)
    {
        var files = new List<string>();
        foreach (var path in paths)
        {
            if (Directory.Exists(path))
            {
                files.AddRange(Directory.EnumerateFiles(path).Order(StringComparer.Ordinal));
            }
            else
            {
                files.Add(path);
            }
        }

        var failed = 0;
        foreach (var file in files)
        {
            try
            {
                target.Run(File.ReadAllBytes(file));
            }
            catch (Exception escaped)
            {
                failed++;
                Console.WriteLine($"{target.Name}: {file}: {escaped}");
            }
        }

        Console.WriteLine($"{target.Name}: {files.Count} inputs, {failed} failed");
        return failed == 0 ? 0 : 1;
    }
}
