using Freight.Bench.Cli;

namespace Freight.Bench.Tests.Cli;

/// <summary>Result files are written whole or not at all, and a set of them all or none.</summary>
public sealed class ResultFileTests
{
    [Fact]
    public async Task WriteAll_OneNameTooLong_NoneIsWrittenAndTheErrorNamesIt()
    {
        var directory = Directory.CreateTempSubdirectory("freight-result-files-").FullName;
        try
        {
            var tooLong = Path.Combine(directory, new string('n', 300) + ".csv");
            KeyValuePair<string, string>[] files = [new(Path.Combine(directory, "first.csv"), "a\r\n"), new(tooLong, "b\r\n")];

            var error = await Assert.ThrowsAsync<IOException>(() => ResultFile.WriteAllAsync(files));

            Assert.StartsWith($"{tooLong} cannot be written: ", error.Message, StringComparison.Ordinal);
            Assert.Empty(Directory.GetFileSystemEntries(directory));
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    [Fact]
    public async Task Write_TheWriterFails_TheEarlierFileStaysAndNoTemporaryIsLeft()
    {
        var directory = Directory.CreateTempSubdirectory("freight-result-files-").FullName;
        try
        {
            var path = Path.Combine(directory, "result.json");
            await File.WriteAllTextAsync(path, "earlier");

            await Assert.ThrowsAsync<InvalidOperationException>(() => ResultFile.WriteAsync(path, async file =>
            {
                await file.WriteAsync("half"u8.ToArray());
                throw new InvalidOperationException("the serialiser failed");
            }));

            Assert.Equal("earlier", await File.ReadAllTextAsync(path));
            Assert.Equal([path], Directory.GetFileSystemEntries(directory));
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }
}
