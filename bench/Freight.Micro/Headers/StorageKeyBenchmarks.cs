using BenchmarkDotNet.Attributes;
using Freight.Files;

namespace Freight.Micro.Headers;

/// <summary>Object key validation (<see cref="StorageKey.TryParse"/>): every request to the files API runs it on its path.</summary>
/// <remarks>Not sealed: BenchmarkDotNet derives from benchmark classes.</remarks>
public class StorageKeyBenchmarks
{
    [ParamsSource(nameof(Keys))]
    public TextInput Input { get; set; } = null!;

    public static IEnumerable<TextInput> Keys =>
    [
        new("short", "reports/2024/q1.csv", "reports/2024/q1.csv"),
        new("unicode", "a Cyrillic path of 4 segments (2-byte UTF-8)", "фото/2024/отпуск/снимок-0001.jpg"),
        new("longest", $"{StorageKey.MaxBytes} bytes: 4 segments of 240 and one of 59 (every limit at its edge)", Longest()),
    ];

    [GlobalSetup]
    public void Setup()
    {
        if (!StorageKey.TryParse(Input.Text, out _, out var error))
        {
            throw new InvalidDataException($"Key '{Input.Name}' was refused: {error}");
        }
    }

    [Benchmark(Description = "storage-key")]
    public StorageKey? Validate()
    {
        StorageKey.TryParse(Input.Text, out var key, out _);
        return key;
    }

    private static string Longest()
    {
        var segment = new string('k', StorageKey.MaxSegmentBytes);
        var key = $"{segment}/{segment}/{segment}/{segment}/";
        return key + new string('z', StorageKey.MaxBytes - key.Length);
    }
}
