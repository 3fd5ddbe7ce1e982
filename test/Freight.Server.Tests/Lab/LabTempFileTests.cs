using Freight.Server.Lab;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Lab;

/// <summary>
/// The lab writes its payload files through a hidden temp file renamed into place. <c>freight serve</c> killed while
/// it writes one leaves that temp file behind (up to <c>MaxLabPayloadBytes</c>, 4 GiB, of disk); the next start removes
/// it, as it removes the stores' half-written uploads, and the lab's finished files stay as they were.
/// </summary>
public sealed class LabTempFileTests : IDisposable
{
    // Guards against a hang; no test asserts on time.
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(60);

    private readonly string _directory = Directory.CreateDirectory(Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N"))).FullName;

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    private string LabPayloads => Path.Combine(_directory, "lab", "payloads");

    private string LabStatic => Path.Combine(_directory, "lab", "static");

    [Fact]
    public async Task Serve_KilledWhileWritingALabPayload_NextStartRemovesTheTempFileAndKeepsTheLabFiles()
    {
        var server = StartServe();
        try
        {
            var address = await ListeningAsync(server);
            using var client = new HttpClient();
            // 1 GiB: written to a temp file before the first byte is answered, long enough to be killed in the middle.
            _ = client.GetAsync(new Uri(address, "/lab/download/file?size=1073741824"), HttpCompletionOption.ResponseHeadersRead);
            Assert.True(await EventuallyAsync(() => HiddenFiles(LabPayloads).Count > 0), "the lab never started writing the payload");
        }
        finally
        {
            await server.DisposeAsync(); // SIGKILL
        }

        Assert.Single(HiddenFiles(LabPayloads));
        var labFiles = LabStaticFiles.Sizes.ToDictionary(LabStaticFiles.FileName, size => File.GetLastWriteTimeUtc(Path.Combine(LabStatic, LabStaticFiles.FileName(size))));

        server = StartServe();
        try
        {
            await ListeningAsync(server);

            Assert.Empty(HiddenFiles(LabPayloads));
            Assert.Empty(Directory.GetFiles(LabPayloads));
            Assert.Equal(labFiles.Keys.Order(StringComparer.Ordinal), Directory.GetFiles(LabStatic).Select(Path.GetFileName).Order(StringComparer.Ordinal));
            foreach (var size in LabStaticFiles.Sizes)
            {
                var path = Path.Combine(LabStatic, LabStaticFiles.FileName(size));
                Assert.Equal(Payloads.Hash((int)size), Payloads.Hash(await File.ReadAllBytesAsync(path)));
                Assert.Equal(labFiles[LabStaticFiles.FileName(size)], File.GetLastWriteTimeUtc(path));
            }

            Assert.Equal(0, await server.TerminateAsync());
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    private FreightProcess StartServe() => FreightProcess.StartServe(_directory, ["--urls", "http://127.0.0.1:0", "--data-dir", _directory]);

    private static async Task<Uri> ListeningAsync(FreightProcess process) =>
        new((await process.ReadUntilListeningAsync(1)).Single(l => l.StartsWith("listening: ", StringComparison.Ordinal))["listening: ".Length..]);

    /// <summary>The dot files of <paramref name="directory"/>: a write in progress, or one a kill interrupted.</summary>
    private static List<string> HiddenFiles(string directory) =>
        Directory.Exists(directory) ? [.. Directory.EnumerateFiles(directory, ".*")] : [];

    private static async Task<bool> EventuallyAsync(Func<bool> condition)
    {
        var deadline = DateTime.UtcNow + s_patience;
        while (!condition())
        {
            if (DateTime.UtcNow > deadline)
            {
                return false;
            }

            await Task.Delay(1);
        }

        return true;
    }
}
