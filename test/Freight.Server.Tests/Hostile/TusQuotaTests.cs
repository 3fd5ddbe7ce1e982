using System.Diagnostics;
using System.Globalization;
using System.Net;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Tus;
using static Freight.Server.Tests.Files.FilesApi;
using static Freight.Server.Tests.Tus.TusApi;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// The reproduction with the default options: a creation reserves nothing on disk, so three POSTs that
/// declare 4 GiB each leave the tus directory as empty as it was; bytes take space as they arrive.
/// </summary>
public sealed class TusReservationTests(FileSystemTusServer server) : IClassFixture<FileSystemTusServer>
{
    [Fact]
    public async Task Post_ThreeUploadsDeclaringFourGiB_ReserveNoDiskSpace()
    {
        // 4 GiB each as in the issue (Tus-Max-Size by default), less on a volume that could not promise 3 × 4 GiB.
        var free = new DriveInfo(server.TusDirectory!).AvailableFreeSpace - (1L << 30);
        var length = Math.Min(4L << 30, free / 4);
        var paths = new List<string>();
        for (var i = 0; i < 3; i++)
        {
            paths.Add(await CreateAsync(server, length, NewFileName()));
        }

        Assert.True(await AllocatedKiBAsync(server.TusDirectory!) < 1024, "the tus directory holds space for bytes that never arrived");
        foreach (var path in paths)
        {
            Assert.Equal(0, await OffsetAsync(server, path));
            using var deleted = await DeleteAsync(server, path);
            Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        }
    }

    [Fact]
    public async Task Patch_OfPartOfTheUpload_TakesSpaceForTheBytesThatArrived()
    {
        var key = NewFileName();
        var content = Content(8 * 1024 * 1024, seed: 306);
        var path = await CreateAsync(server, content.Length, key);

        await PatchAllAsync(server, path, content[..(1024 * 1024)], 1024 * 1024);

        var data = Path.Combine(server.TusDirectory!, Id(path) + ".bin");
        Assert.InRange(await AllocatedKiBAsync(data), 1024, 2048);
        await PatchAllAsync(server, path, content, 1024 * 1024, from: 1024 * 1024);
        await AssertFileAsync(server, key, content);
    }

    /// <summary>Blocks the file system allocated under <paramref name="path"/> (<c>du -sk</c>), not the files' lengths.</summary>
    private static async Task<long> AllocatedKiBAsync(string path)
    {
        using var du = Process.Start(new ProcessStartInfo("du", ["-sk", path]) { RedirectStandardOutput = true })!;
        var output = await du.StandardOutput.ReadToEndAsync();
        await du.WaitForExitAsync();
        Assert.Equal(0, du.ExitCode);
        return long.Parse(output.Split('\t')[0], NumberStyles.None, CultureInfo.InvariantCulture);
    }
}
