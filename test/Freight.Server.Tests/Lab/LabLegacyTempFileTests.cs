using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Lab;

/// <summary>
/// An older <c>freight serve</c> killed while writing a lab file left <c>.NAME.GUID.tmp</c> behind, a name no sweep
/// knew. The next start removes exactly those: in the two folders the lab wrote them into, named after a lab file,
/// and nothing that only looks alike (another name, another folder, below one, through a link).
/// </summary>
public sealed class LabLegacyTempFileTests : IDisposable
{
    private const string Guid32 = "0123456789abcdef0123456789abcdef";

    private readonly string _directory = Directory.CreateDirectory(Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N"))).FullName;

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    private string Data => Path.Combine(_directory, "data");

    [Fact]
    public async Task Serve_StartAfterAnOlderVersionWasKilledWritingLabFiles_RemovesItsTempFilesAndNothingElse()
    {
        string[] leftovers =
        [
            $"lab/payloads/.payload-2017-1073741824.bin.{Guid32}.tmp",
            $"lab/static/.131072.bin.{Guid32}.tmp",
        ];
        string[] lookalikes =
        [
            $"lab/payloads/.payload-2017-1073741824.bin.{Guid32.ToUpperInvariant()}.tmp", // not Guid.ToString("N")
            $"lab/payloads/.payload-2017-1073741824.bin.{Guid32[1..]}.tmp", // 31 digits
            $"lab/payloads/.notes.bin.{Guid32}.tmp", // not a lab file's name
            $"lab/payloads/payload-2017-1073741824.bin.{Guid32}.tmp", // not hidden
            $"lab/payloads/.payload-2017-1073741824.bin.{Guid32}.tmp.keep",
            $"lab/payloads/old/.payload-2017-1073741824.bin.{Guid32}.tmp", // below the folder
            $"lab/uploads/.131072.bin.{Guid32}.tmp", // a lab folder WriteFile never wrote into
            $".131072.bin.{Guid32}.tmp", // the data directory itself
            $"files/lab/static/.131072.bin.{Guid32}.tmp", // the files API's
        ];
        foreach (var name in leftovers.Concat(lookalikes))
        {
            Write(Path.Combine(Data, name));
        }

        await StartAndStopServeAsync();

        Assert.All(leftovers, name => Assert.False(File.Exists(Path.Combine(Data, name)), name));
        Assert.All(lookalikes, name => Assert.True(File.Exists(Path.Combine(Data, name)), name));
    }

    [Fact]
    public async Task Serve_LabFolderIsALink_LeavesTheFilesBehindItAlone()
    {
        var elsewhere = Path.Combine(_directory, "elsewhere");
        var behindTheLink = Path.Combine(elsewhere, $".payload-2017-1073741824.bin.{Guid32}.tmp");
        Write(behindTheLink);
        Directory.CreateDirectory(Path.Combine(Data, "lab"));
        Directory.CreateSymbolicLink(Path.Combine(Data, "lab", "payloads"), elsewhere);

        await StartAndStopServeAsync();

        Assert.True(File.Exists(behindTheLink));
    }

    private static void Write(string path)
    {
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllBytes(path, new byte[4096]);
    }

    private async Task StartAndStopServeAsync()
    {
        await using var server = FreightProcess.StartServe(_directory, ["--urls", "http://127.0.0.1:0", "--data-dir", Data]);
        Assert.Contains((await server.ReadUntilListeningAsync(1)), line => line.StartsWith("listening: ", StringComparison.Ordinal));
        Assert.Equal(0, await server.TerminateAsync());
    }
}
