using System.Diagnostics;
using System.Text.RegularExpressions;
using Freight.Bench.Cli;

namespace Freight.Bench.Tests.Cli;

/// <summary>
/// Result files are written whole or not at all, and a set of them all or none; a temporary file left by a writer that
/// was killed is removed by the next write into its folder, and never one whose writer is still running.
/// </summary>
public sealed class ResultFileTests
{
    [Fact]
    public async Task WriteAll_OneNameTooLong_NoneIsWrittenAndTheErrorNamesIt()
    {
        using var directory = new TemporaryDirectory("freight-result-files-");
        var tooLong = directory.Combine(new string('n', 300) + ".csv");
        KeyValuePair<string, string>[] files = [new(directory.Combine("first.csv"), "a\r\n"), new(tooLong, "b\r\n")];

        var error = await Assert.ThrowsAsync<IOException>(() => ResultFile.WriteAllAsync(files));

        Assert.StartsWith($"{tooLong} cannot be written: ", error.Message, StringComparison.Ordinal);
        Assert.Empty(directory.Entries());
    }

    [Fact]
    public async Task Write_TheWriterFails_TheEarlierFileStaysAndNoTemporaryIsLeft()
    {
        using var directory = new TemporaryDirectory("freight-result-files-");
        var path = directory.Combine("result.json");
        await File.WriteAllTextAsync(path, "earlier");

        await Assert.ThrowsAsync<InvalidOperationException>(() => ResultFile.WriteAsync(path, async file =>
        {
            await file.WriteAsync("half"u8.ToArray());
            throw new InvalidOperationException("the serialiser failed");
        }));

        Assert.Equal("earlier", await File.ReadAllTextAsync(path));
        Assert.Equal([path], directory.Entries());
    }

    [Fact]
    public async Task Write_ALeftoverOfAWriterNoLongerRunning_RemovedBeforeTheWrite()
    {
        using var directory = new TemporaryDirectory("freight-result-files-");
        var path = directory.Combine("result.json");
        var leftover = directory.Combine(WithProcessId(await TemporaryNameAsync(path), ExitedProcessId()));
        await File.WriteAllTextAsync(leftover, "half a result");

        await ResultFile.WriteTextAsync(directory.Combine("next.json"), "whole");

        Assert.Equal([directory.Combine("next.json"), path], directory.Entries());
    }

    [Fact]
    public async Task Write_TemporariesOfWritersStillRunningOrOnAnotherMachine_LeftAlone()
    {
        using var directory = new TemporaryDirectory("freight-result-files-");
        using var otherWriter = Process.Start("sleep", "60");
        try
        {
            var path = directory.Combine("result.json");
            var name = await TemporaryNameAsync(path);
            string[] running =
            [
                directory.Combine(WithProcessId(name, otherWriter.Id)),

                // This process's own: another write under way in it.
                directory.Combine(name[..^5] + (name[^5] == '0' ? '1' : '0') + ".tmp"),

                // Another machine's, through a shared folder: its processes cannot be seen from here.
                directory.Combine(Regex.Replace(WithProcessId(name, ExitedProcessId()), "~freight-([0-9]+)-[0-9a-f]{8}-", "~freight-$1-00000000-")),
            ];
            foreach (var temporary in running)
            {
                await File.WriteAllTextAsync(temporary, "under way");
            }

            await ResultFile.WriteTextAsync(path, "whole");

            Assert.Equal("whole", await File.ReadAllTextAsync(path));
            Assert.Equal([.. running.Append(path).Order(StringComparer.Ordinal)], directory.Entries());
        }
        finally
        {
            otherWriter.Kill();
        }
    }

    [Fact]
    public async Task Write_TwoWritersAtOnceInOneFolder_NeitherLosesItsTemporary()
    {
        using var directory = new TemporaryDirectory("freight-result-files-");
        var first = directory.Combine("first.json");
        var second = directory.Combine("second.json");
        var secondWriting = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        // The first holds its temporary open until the second has looked for leftovers and is writing its own.
        var firstWrite = ResultFile.WriteAsync(first, async file =>
        {
            await secondWriting.Task;
            await file.WriteAsync("first"u8.ToArray());
        });
        await ResultFile.WriteAsync(second, async file =>
        {
            secondWriting.SetResult();
            await file.WriteAsync("second"u8.ToArray());
        });
        await firstWrite;

        Assert.Equal("first", await File.ReadAllTextAsync(first));
        Assert.Equal("second", await File.ReadAllTextAsync(second));
        Assert.Equal([first, second], directory.Entries());
    }

    [Theory]
    [InlineData('n', 251)]
    [InlineData('é', 125)]
    public async Task Write_NameAtTheFileSystemsLimit_WrittenAndNoTemporaryLeft(char letter, int count)
    {
        using var directory = new TemporaryDirectory("freight-result-files-");

        // 255 and 254 bytes of UTF-8: the temporary's name must be shorter than its target's may be.
        var path = directory.Combine(new string(letter, count) + ".csv");

        await ResultFile.WriteTextAsync(path, "whole");

        Assert.Equal("whole", await File.ReadAllTextAsync(path));
        Assert.Equal([path], directory.Entries());
    }

    /// <summary>The name of the temporary file a write of <paramref name="path"/> makes, seen while it writes.</summary>
    private static async Task<string> TemporaryNameAsync(string path)
    {
        var directory = Path.GetDirectoryName(path)!;
        string? name = null;
        await ResultFile.WriteAsync(path, file =>
        {
            name = Path.GetFileName(Assert.Single(Directory.GetFiles(directory), f => f != path));
            return Task.CompletedTask;
        });
        return name!;
    }

    /// <summary>The temporary's name as the process <paramref name="processId"/> would have made it.</summary>
    private static string WithProcessId(string name, int processId) =>
        name.Replace($"~freight-{Environment.ProcessId}-", $"~freight-{processId}-", StringComparison.Ordinal);

    /// <summary>The id of a process that has exited: a writer killed mid-write.</summary>
    private static int ExitedProcessId()
    {
        using var process = Process.Start("true");
        process.WaitForExit();
        return process.Id;
    }
}
