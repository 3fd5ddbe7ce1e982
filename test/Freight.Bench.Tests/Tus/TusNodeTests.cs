using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text.Json;
using Freight.Bench.Load;
using Freight.Bench.Peers;
using Freight.Bench.Suites.Tus;
using Freight.Lab.Payload;

namespace Freight.Bench.Tests.Tus;

/// <summary>
/// The real tus peer (@tus/server and its file store under Node): it starts on a loopback port in our work
/// directory, takes the bench's tus client's uploads into {store}/{id}, and is gone, process and port, once
/// disposed; installing and starting fail with what npm or the server said.
/// </summary>
public sealed class TusNodeTests(TusNodePeer peer) : IClassFixture<TusNodePeer>
{
    // Five 1 MiB chunks and an odd tail: several PATCHes, the last one short.
    private const int PayloadBytes = (5 * 1024 * 1024) + 4321;

    private const int ChunkBytes = 1024 * 1024;

    [Fact]
    public async Task Upload_InChunks_StoreHoldsThePayloadUnderTheUploadId()
    {
        await using var server = await peer.StartAsync();
        using var client = new HttpClient();
        var payload = DeterministicPayload.Create(PayloadBytes);

        var upload = await new TusUploadClient(client).UploadAsync(server.Endpoint, "chunked.bin", payload, ChunkBytes, CancellationToken.None);

        Assert.Equal(6, upload.Patches);
        Assert.Equal(PayloadBytes, upload.Offset);
        Assert.StartsWith(server.Endpoint + "/", upload.Location.ToString(), StringComparison.Ordinal);
        Assert.Equal(payload, await File.ReadAllBytesAsync(server.StoredFilePath(upload.Id)));
        using var info = JsonDocument.Parse(await File.ReadAllTextAsync(server.StoredFilePath(upload.Id) + ".json"));
        Assert.Equal("chunked.bin", info.RootElement.GetProperty("metadata").GetProperty("filename").GetString());
    }

    [Fact]
    public async Task Upload_ChunkLargerThanPayload_OnePatch()
    {
        await using var server = await peer.StartAsync();
        using var client = new HttpClient();
        var payload = DeterministicPayload.Create(PayloadBytes);

        var upload = await new TusUploadClient(client).UploadAsync(server.Endpoint, "whole.bin", payload, 16 * 1024 * 1024, CancellationToken.None);

        Assert.Equal(1, upload.Patches);
        Assert.Equal(payload, await File.ReadAllBytesAsync(server.StoredFilePath(upload.Id)));
    }

    [Fact]
    public async Task PatchAsync_OffsetAheadOfTheServer_FailsWithStatusAndBody()
    {
        await using var server = await peer.StartAsync();
        using var client = new HttpClient();
        var tus = new TusUploadClient(client);
        var payload = DeterministicPayload.Create(PayloadBytes);
        var location = await tus.CreateAsync(server.Endpoint, "gap.bin", payload.Length, CancellationToken.None);

        var failure = await Assert.ThrowsAsync<VerificationException>(() => tus.PatchAsync(location, payload, ChunkBytes, ChunkBytes, CancellationToken.None));

        Assert.StartsWith($"PATCH {location}: 409 ", failure.Message, StringComparison.Ordinal);
        Assert.Contains("where tus expects 204", failure.Message, StringComparison.Ordinal);
        Assert.Contains("offset", failure.Message, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public async Task StartAsync_Installed_OneNodeProcessWorkingInTheWorkDirectory()
    {
        await using var server = await peer.StartAsync();
        using var process = Process.GetProcessById(server.ProcessId);

        Assert.Equal("node", process.ProcessName);
        Assert.Equal(IPAddress.Loopback.ToString(), server.BaseAddress.Host);
        Assert.NotEqual(0, server.BaseAddress.Port);
        Assert.True(Directory.Exists(server.StoreDirectory));
        var cwd = new DirectoryInfo($"/proc/{server.ProcessId}/cwd").ResolveLinkTarget(returnFinalTarget: true)!.FullName;
        Assert.Equal(Path.Combine(Path.GetDirectoryName(server.StoreDirectory)!, "work"), cwd);
        Assert.True(server.NodeVersion >= TusNode.MinimumNodeVersion);
    }

    [Fact]
    public async Task DisposeAsync_Running_ExitsOnItsOwnWhenInputClosesAndFreesThePort()
    {
        var server = await peer.StartAsync();
        var endPoint = new IPEndPoint(IPAddress.Loopback, server.BaseAddress.Port);

        await server.DisposeAsync();
        await server.DisposeAsync();

        // Exit code 0: Node left because its stdin closed, as it does when the bench dies; a kill gives 137.
        Assert.Equal(0, server.ExitCode);
        Assert.True(server.HasExited);
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        var refused = await Assert.ThrowsAsync<SocketException>(async () => await socket.ConnectAsync(endPoint));
        Assert.Equal(SocketError.ConnectionRefused, refused.SocketErrorCode);
    }

    [Fact]
    public async Task DisposeAsync_NodeAlreadyKilled_Completes()
    {
        var server = await peer.StartAsync();
        using (var process = Process.GetProcessById(server.ProcessId))
        {
            process.Kill();
            await process.WaitForExitAsync();
        }

        await server.DisposeAsync();

        Assert.True(server.HasExited);
        Assert.Equal(137, server.ExitCode);
    }

    [Fact]
    public async Task StoredFilePath_NotAnId_Throws()
    {
        await using var server = await peer.StartAsync();

        Assert.Throws<ArgumentException>(() => server.StoredFilePath("../escape"));
        Assert.Equal(Path.Combine(server.StoreDirectory, "abc"), server.StoredFilePath("abc"));
    }

    [Fact]
    public void FindPackageDirectory_FromTheTestBinaries_IsTheClonesPeersTusNode()
    {
        var directory = TusNode.FindPackageDirectory();

        Assert.NotNull(directory);
        Assert.Equal(peer.Installation.PackageDirectory, directory);
        Assert.True(File.Exists(Path.Combine(directory, "package-lock.json")));
        Assert.EndsWith(Path.Combine("peers", "tus-node"), directory, StringComparison.Ordinal);
    }

    [Fact]
    public void FindPackageDirectory_OutsideAClone_Null()
    {
        Assert.Null(TusNode.FindPackageDirectory(peer.NewDirectory()));
    }

    [Fact]
    public async Task LocateAsync_ExplicitDirectoryWithoutServer_Throws()
    {
        await Assert.ThrowsAsync<DirectoryNotFoundException>(() => TusNode.LocateAsync(peer.NewDirectory(), CancellationToken.None));
    }

    [Fact]
    public async Task EnsurePackagesAsync_Installed_RunsNoInstall()
    {
        Assert.False(await TusNode.EnsurePackagesAsync(peer.Installation, CancellationToken.None));
    }

    [Fact]
    public async Task EnsurePackagesAsync_FreshCopyOfThePackage_InstallsTheLockedVersionsOnce()
    {
        var copy = CopyPackage(peer.NewDirectory());
        var installation = peer.Installation with { PackageDirectory = copy };

        var first = await TusNode.EnsurePackagesAsync(installation, CancellationToken.None);
        var second = await TusNode.EnsurePackagesAsync(installation, CancellationToken.None);

        Assert.True(first);
        Assert.False(second);
        Assert.Equal("2.4.5", PackageVersion(copy, "@tus/server"));
        Assert.Equal("2.1.1", PackageVersion(copy, "@tus/file-store"));
    }

    [Fact]
    public async Task StartAsync_LockFileOutOfStepWithPackageJson_FailsWithNpmsMessage()
    {
        var copy = CopyPackage(peer.NewDirectory());
        var package = Path.Combine(copy, "package.json");
        await File.WriteAllTextAsync(package, (await File.ReadAllTextAsync(package)).Replace("\"2.4.5\"", "\"2.4.4\"", StringComparison.Ordinal));
        var installation = peer.Installation with { PackageDirectory = copy };

        var failure = await Assert.ThrowsAsync<InvalidOperationException>(() => TusNode.StartAsync(
            installation, new TusNodeOptions { StoreDirectory = Path.Combine(copy, "store"), WorkDirectory = Path.Combine(copy, "work") }, CancellationToken.None));

        Assert.StartsWith($"npm ci in {copy} failed (exit code ", failure.Message, StringComparison.Ordinal);
        Assert.Contains("package.json and package-lock.json or npm-shrinkwrap.json are in sync", failure.Message, StringComparison.Ordinal);
        Assert.Contains("lock file's @tus/server@2.4.5 does not satisfy @tus/server@2.4.4", failure.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("--legacy-bundling", failure.Message, StringComparison.Ordinal);
        Assert.False(Directory.Exists(Path.Combine(copy, "work")));
    }

    [Fact]
    public async Task StartAsync_ServerExitsAtOnce_FailsWithItsExitCodeAndStderr()
    {
        var installation = peer.Installation with { PackageDirectory = FakePackage("console.error('cannot listen: boom'); process.exit(3);") };

        var failure = await Assert.ThrowsAsync<InvalidOperationException>(() => TusNode.StartAsync(
            installation, new TusNodeOptions { StoreDirectory = Path.Combine(installation.PackageDirectory, "store"), WorkDirectory = Path.Combine(installation.PackageDirectory, "work") }, CancellationToken.None));

        Assert.Contains("exited with code 3 before listening", failure.Message, StringComparison.Ordinal);
        Assert.Contains("cannot listen: boom", failure.Message, StringComparison.Ordinal);
    }

    private string FakePackage(string script)
    {
        var directory = peer.NewDirectory();
        TusNodePeer.WriteFakePackage(directory, script);
        return directory;
    }

    private string CopyPackage(string target)
    {
        foreach (var name in (string[])["package.json", "package-lock.json", "server.mjs"])
        {
            File.Copy(Path.Combine(peer.Installation.PackageDirectory, name), Path.Combine(target, name));
        }

        return target;
    }

    private static string? PackageVersion(string directory, string package)
    {
        using var json = JsonDocument.Parse(File.ReadAllText(Path.Combine(directory, "node_modules", package, "package.json")));
        return json.RootElement.GetProperty("version").GetString();
    }
}
