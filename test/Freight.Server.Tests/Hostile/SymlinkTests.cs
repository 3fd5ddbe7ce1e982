using System.Net;
using System.Text.Json;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Tus;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// A folder outside the store's root holding a secret, for links planted below the root to point at. Every
/// test checks it is exactly as it was: nothing read from it is served, nothing written, created or deleted.
/// </summary>
internal sealed class OutsideFolder : IDisposable
{
    public static readonly byte[] Secret = "SECRET outside the root"u8.ToArray();

    public OutsideFolder()
    {
        Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "freight-outside-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(Path);
        File.WriteAllBytes(SecretPath, Secret);
    }

    public string Path { get; }

    public string SecretPath => System.IO.Path.Combine(Path, "secret");

    /// <summary>The folder holds its secret and nothing else (no planted file, no sidecar, no new folder).</summary>
    public void AssertUntouched()
    {
        Assert.Equal(["secret"], Directory.GetFileSystemEntries(Path, "*", SearchOption.AllDirectories).Select(System.IO.Path.GetFileName));
        Assert.Equal(Secret, File.ReadAllBytes(SecretPath));
    }

    public void Dispose() => Directory.Delete(Path, recursive: true);
}

/// <summary>
/// Issue 16, item 1: symbolic links below the file-system store's root are never followed — not in the middle
/// of a path nor as its leaf, dangling or not, pointing outside or inside, nor in a loop. Reads and deletes
/// answer 404, writes 409 (the key's place is taken by something the store will not write through: the
/// client cannot fix it by authenticating, so not 403), listings skip links, and the server keeps serving.
/// Links are planted in the fixture's files folder as an attacker with write access to it would.
/// </summary>
public sealed class SymlinkTests(FileSystemFilesServer server) : IClassFixture<FileSystemFilesServer>, IDisposable
{
    private static readonly byte[] s_content = Content(5000, seed: 161);

    private readonly OutsideFolder _outside = new();

    public void Dispose() => _outside.Dispose();

    /// <summary>A new folder of the store holding one real file, <c>{root}/real.bin</c>.</summary>
    private async Task<string> NewRootAsync()
    {
        var root = NewRoot();
        await CreateAsync(server, $"{root}/real.bin", s_content);
        return root;
    }

    private void LinkFolder(string key, string target) => Directory.CreateSymbolicLink(server.DiskPath(key), target);

    private void LinkFile(string key, string target) => File.CreateSymbolicLink(server.DiskPath(key), target);

    /// <summary>The server still stores and serves a plain file after whatever the test sent.</summary>
    private async Task AssertStillServingAsync(string root)
    {
        await CreateAsync(server, $"{root}/after.bin", s_content);
        await AssertStoredAsync(server, $"{root}/after.bin", s_content);
    }

    [Theory]
    [InlineData("GET")]
    [InlineData("HEAD")]
    public async Task Read_FileLinkPointingOutside_Returns404AndWritesNoSidecar(string method)
    {
        var root = await NewRootAsync();
        LinkFile($"{root}/leak", _outside.SecretPath);

        using var response = await SendAsync(server, new HttpMethod(method), $"/files/{root}/leak");

        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
        if (method == "GET")
        {
            await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
        }

        _outside.AssertUntouched();
        Assert.False(File.Exists(server.DiskPath($"{root}/.leak.freight-meta")));
        await AssertStillServingAsync(root);
    }

    [Fact]
    public async Task Get_ThroughLinkedFolder_Returns404AndWritesNoSidecarOutside()
    {
        var root = await NewRootAsync();
        LinkFolder($"{root}/evil", _outside.Path);

        using var response = await SendAsync(server, HttpMethod.Get, $"/files/{root}/evil/secret", ("Want-Repr-Digest", "sha-256=1"));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
        _outside.AssertUntouched();
        await AssertStillServingAsync(root);
    }

    [Fact]
    public async Task Get_LinkPointingInside_Returns404()
    {
        var root = await NewRootAsync();
        LinkFile($"{root}/alias.bin", server.DiskPath($"{root}/real.bin"));
        LinkFolder($"{root}/alias", server.DiskPath(root));

        using var file = await SendAsync(server, HttpMethod.Get, $"/files/{root}/alias.bin");
        using var folder = await SendAsync(server, HttpMethod.Get, $"/files/{root}/alias/real.bin");

        await ProblemAssert.IsProblemAsync(file, HttpStatusCode.NotFound);
        await ProblemAssert.IsProblemAsync(folder, HttpStatusCode.NotFound);
        await AssertStoredAsync(server, $"{root}/real.bin", s_content);
    }

    [Fact]
    public async Task Get_DanglingLink_Returns404()
    {
        var root = await NewRootAsync();
        LinkFile($"{root}/dangling", Path.Combine(_outside.Path, "missing"));

        using var response = await SendAsync(server, HttpMethod.Get, $"/files/{root}/dangling");

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
        _outside.AssertUntouched();
    }

    [Theory]
    [InlineData("planted")]
    [InlineData("new/deeper/planted")]
    public async Task Put_ThroughLinkedFolder_Returns409AndCreatesNothingOutside(string below)
    {
        var root = await NewRootAsync();
        LinkFolder($"{root}/evil", _outside.Path);

        using var response = await PutAsync(server, $"{root}/evil/{below}", s_content);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.Conflict);
        _outside.AssertUntouched();
        Assert.Empty(server.FilesTempFiles());
        await AssertStillServingAsync(root);
    }

    [Fact]
    public async Task Put_OntoFileLink_Returns409AndNeitherTargetNorLinkChanges()
    {
        var root = await NewRootAsync();
        LinkFile($"{root}/leak", _outside.SecretPath);

        using var response = await PutAsync(server, $"{root}/leak", s_content);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.Conflict);
        _outside.AssertUntouched();
        Assert.Equal(_outside.SecretPath, new FileInfo(server.DiskPath($"{root}/leak")).LinkTarget);
        Assert.False(File.Exists(server.DiskPath($"{root}/.leak.freight-meta")));
    }

    [Fact]
    public async Task Put_OntoDanglingLink_Returns409AndTargetNotCreated()
    {
        var root = await NewRootAsync();
        var target = Path.Combine(_outside.Path, "created");
        LinkFile($"{root}/dangling", target);

        using var response = await PutAsync(server, $"{root}/dangling", s_content);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.Conflict);
        _outside.AssertUntouched();
    }

    [Fact]
    public async Task Multipart_IntoLinkedFolder_Returns409AndCreatesNothingOutside()
    {
        var root = await NewRootAsync();
        LinkFolder($"{root}/evil", _outside.Path);
        using var request = server.Request(HttpMethod.Post, Protocol.Http11, $"/files/{root}/evil");
        request.Content = new ByteArrayContent(MultipartBodies.Complete(s_content));
        Assert.True(request.Content.Headers.TryAddWithoutValidation("Content-Type", "multipart/form-data; boundary=" + MultipartBodies.Boundary));

        using var response = await server.Client.SendAsync(request);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.Conflict);
        _outside.AssertUntouched();
        await AssertStillServingAsync(root);
    }

    [Theory]
    [InlineData("evil/secret")]
    [InlineData("leak")]
    public async Task Delete_ThroughLinkOrOfLink_Returns404AndDeletesNothing(string key)
    {
        var root = await NewRootAsync();
        LinkFolder($"{root}/evil", _outside.Path);
        LinkFile($"{root}/leak", _outside.SecretPath);

        using var response = await SendAsync(server, HttpMethod.Delete, $"/files/{root}/{key}");

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
        _outside.AssertUntouched();
        Assert.NotNull(new FileInfo(server.DiskPath($"{root}/leak")).LinkTarget);
        Assert.NotNull(new DirectoryInfo(server.DiskPath($"{root}/evil")).LinkTarget);
    }

    [Fact]
    public async Task ListAndGet_LoopLink_ListingSkipsItAndPathsThroughItAre404()
    {
        var root = await NewRootAsync();
        LinkFolder($"{root}/loop", ".");
        try
        {
            using var listing = await ListAsync(server, "prefix=" + root);
            using var everything = await ListAsync(server, "prefix=");
            using var through = await SendAsync(server, HttpMethod.Get, $"/files/{root}/loop/real.bin");
            using var twice = await SendAsync(server, HttpMethod.Get, $"/files/{root}/loop/loop/real.bin");

            Assert.Equal([$"{root}/real.bin"], Names(listing));
            Assert.DoesNotContain(Names(everything), name => name.Contains("/loop/", StringComparison.Ordinal));
            await ProblemAssert.IsProblemAsync(through, HttpStatusCode.NotFound);
            await ProblemAssert.IsProblemAsync(twice, HttpStatusCode.NotFound);
        }
        finally
        {
            // The fixture's own helpers walk the whole folder and would follow the loop.
            File.Delete(server.DiskPath($"{root}/loop"));
        }
    }

    [Fact]
    public async Task List_LinkedFolderAndFileLinks_NotListed()
    {
        var root = await NewRootAsync();
        LinkFolder($"{root}/evil", _outside.Path);
        LinkFile($"{root}/leak", _outside.SecretPath);
        LinkFile($"{root}/dangling", Path.Combine(_outside.Path, "missing"));

        using var listing = await ListAsync(server, "prefix=" + root);

        Assert.Equal([$"{root}/real.bin"], Names(listing));
        _outside.AssertUntouched();
    }

    private static List<string> Names(JsonDocument listing) =>
        [.. listing.RootElement.GetProperty("items").EnumerateArray().Select(item => item.GetProperty("name").GetString()!)];
}

/// <summary>The tus store's side of issue 16 item 1: a landing through a linked folder, and links planted as an upload's own files.</summary>
public sealed class TusSymlinkTests(FileSystemTusServer server) : IClassFixture<FileSystemTusServer>, IDisposable
{
    private static readonly byte[] s_content = Content(300_000, seed: 162);

    private readonly OutsideFolder _outside = new();

    public void Dispose() => _outside.Dispose();

    [Fact]
    public async Task Upload_LandingThroughLinkedFolder_Returns409KeepsTheBytesAndCreatesNothingOutside()
    {
        var root = NewRoot();
        Directory.CreateDirectory(server.DiskPath(root));
        Directory.CreateSymbolicLink(server.DiskPath($"{root}/evil"), _outside.Path);
        var path = await TusApi.CreateAsync(server, s_content.Length, $"{root}/evil/landed.bin");
        using (var first = await TusApi.PatchAsync(server, path, 0, s_content[..100_000]))
        {
            await AssertStatusAsync(first, HttpStatusCode.NoContent);
        }

        using var last = await TusApi.PatchAsync(server, path, 100_000, s_content[100_000..]);

        await ProblemAssert.IsProblemAsync(last, HttpStatusCode.Conflict);
        _outside.AssertUntouched();
        // Nothing lost: the upload still holds every byte for when the link is gone.
        Assert.Equal(s_content, server.StoredBytes(TusApi.Id(path)));
        await TusApi.AssertNoFileAsync(server, $"{root}/evil/landed.bin");
    }

    [Fact]
    public async Task Patch_DataFileReplacedByLink_NothingWrittenOutside()
    {
        var path = await TusApi.CreateAsync(server, s_content.Length, TusApi.NewFileName());
        var data = Path.Combine(server.TusDirectory!, TusApi.Id(path) + ".bin");
        File.Delete(data);
        File.CreateSymbolicLink(data, _outside.SecretPath);

        using var patch = await TusApi.PatchAsync(server, path, 0, s_content[..1000]);
        using var head = await TusApi.HeadAsync(server, path);

        Assert.False(patch.IsSuccessStatusCode, $"PATCH through a link answered {(int)patch.StatusCode}");
        Assert.Equal(HttpStatusCode.NotFound, head.StatusCode);
        _outside.AssertUntouched();
    }

    [Fact]
    public async Task Post_RecordNameTakenByLink_NothingReadOrWrittenOutside()
    {
        var path = await TusApi.CreateAsync(server, s_content.Length, TusApi.NewFileName());
        var record = Path.Combine(server.TusDirectory!, TusApi.Id(path) + ".json");
        var copy = Path.Combine(_outside.Path, "record.json");
        File.Copy(record, copy);
        File.Delete(record);
        File.CreateSymbolicLink(record, copy);

        using var head = await TusApi.HeadAsync(server, path);

        // A record reached through a link is no record: the upload is not found, its bytes not appendable.
        Assert.Equal(HttpStatusCode.NotFound, head.StatusCode);
        File.Delete(copy);
        _outside.AssertUntouched();
    }

    [Fact]
    public async Task Upload_ToPlainName_StillLands()
    {
        var key = TusApi.NewFileName();
        var path = await TusApi.CreateAsync(server, s_content.Length, key);

        await TusApi.PatchAllAsync(server, path, s_content, 100_000);

        await TusApi.AssertFileAsync(server, key, s_content);
        _outside.AssertUntouched();
    }
}
