using System.Diagnostics;
using System.Globalization;
using Freight.Server.Lab;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Lab;

/// <summary>
/// The lab writes its payload files through a hidden temp file renamed into place. <c>freight serve</c> killed while
/// it writes one leaves that temp file behind (up to <c>MaxLabPayloadBytes</c>, 4 GiB, of disk); the next start removes
/// it, as it removes the stores' half-written uploads, and the lab's finished files stay as they were. The server is
/// frozen (SIGSTOP) before it is killed, so the test sees for certain that the write was still in progress.
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
            Assert.True(await FreezeWhileWritingAPayloadAsync(server, client, address), "each payload was written whole before the server could be frozen");
        }
        finally
        {
            await server.DisposeAsync(); // SIGKILL, frozen or not
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

    /// <summary>
    /// Asks for a 1 GiB payload (written to a temp file before the first byte is answered) and freezes the server
    /// (SIGSTOP) once the write shows. Frozen, a temp file still there is a write in progress for certain, which the
    /// kill then interrupts, however long this process was kept from running. One that finished before the freeze
    /// (a test runner starved for as long as the write took) is removed and another size asked for, up to 3 times.
    /// </summary>
    private async Task<bool> FreezeWhileWritingAPayloadAsync(FreightProcess server, HttpClient client, Uri address)
    {
        for (var size = 1L << 30; size > (1L << 30) - 3; size--)
        {
            _ = client.GetAsync(new Uri(address, FormattableString.Invariant($"/lab/download/file?size={size}")), HttpCompletionOption.ResponseHeadersRead);
            Assert.True(await EventuallyAsync(() => Directory.Exists(LabPayloads) && Directory.EnumerateFiles(LabPayloads).Any()), "the lab never started writing the payload");
            await SignalAsync(server, "STOP");
            if (HiddenFiles(LabPayloads).Count > 0)
            {
                return true;
            }

            foreach (var finished in Directory.GetFiles(LabPayloads))
            {
                File.Delete(finished);
            }

            await SignalAsync(server, "CONT");
        }

        return false;
    }

    private static async Task SignalAsync(FreightProcess process, string signal)
    {
        using var kill = Process.Start("kill", ["-" + signal, process.Id.ToString(CultureInfo.InvariantCulture)]);
        await kill.WaitForExitAsync();
        Assert.Equal(0, kill.ExitCode);
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
