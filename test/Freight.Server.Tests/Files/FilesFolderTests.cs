using System.Net;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Files;

/// <summary>
/// The file-system store maps '/' to folders, which the other stores do not have: a refused write leaves no
/// folder behind, and a key that collides with a folder (or a file with a folder) is a client error
/// (409 problem), never a 500, with nothing changed.
/// </summary>
public sealed class FilesFolderTests(FileSystemFilesServer server) : IClassFixture<FileSystemFilesServer>
{
    private static readonly byte[] s_content = Content(3000, seed: 61);

    [Fact]
    public async Task Put_RefusedUploadIntoNewFolder_LeavesNoFolderBehind()
    {
        var root = NewRoot();

        using var response = await PutAsync(server, $"{root}/new/deep/x.bin", s_content, ("Content-Digest", Sha256Field(Content(3000, seed: 62))));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
        Assert.False(Directory.Exists(server.DiskPath(root)), $"the refused upload left {server.DiskPath(root)}");
    }

    [Fact]
    public async Task Put_FileNamedLikeTheFolderARefusedUploadWouldHaveMade_IsStored()
    {
        var root = NewRoot();
        using (var refused = await PutAsync(server, $"{root}/name/x.bin", s_content, ("Content-Digest", Sha256Field(Content(3000, seed: 62)))))
        {
            await ProblemAssert.IsProblemAsync(refused, HttpStatusCode.BadRequest);
        }

        // Nothing was stored under name/, so name is free for a file.
        using var response = await PutAsync(server, $"{root}/name", s_content);

        await AssertStatusAsync(response, HttpStatusCode.Created);
        await AssertStoredAsync(server, $"{root}/name", s_content);
    }

    [Fact]
    public async Task Delete_LastFileInFolder_ThenAFileOfTheFolderName_IsStored()
    {
        var root = NewRoot();
        await CreateAsync(server, $"{root}/d/e.bin", s_content);
        using (var deleted = await SendAsync(server, HttpMethod.Delete, $"/files/{root}/d/e.bin"))
        {
            await AssertStatusAsync(deleted, HttpStatusCode.NoContent);
        }

        using var response = await PutAsync(server, $"{root}/d", s_content);

        await AssertStatusAsync(response, HttpStatusCode.Created);
        await AssertStoredAsync(server, $"{root}/d", s_content);
    }

    [Fact]
    public async Task Put_FileWhereAFolderOfFilesIs_Returns409ProblemAndChangesNothing()
    {
        var root = NewRoot();
        await CreateAsync(server, $"{root}/folder/inside.bin", s_content);
        var before = server.DataDirectorySnapshot();

        using var response = await PutAsync(server, $"{root}/folder", Content(10));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.Conflict);
        Assert.Equal(before, server.DataDirectorySnapshot());
        await AssertStoredAsync(server, $"{root}/folder/inside.bin", s_content);
    }

    [Fact]
    public async Task Put_FileBelowAPathThatIsAFile_Returns409ProblemAndChangesNothing()
    {
        var root = NewRoot();
        await CreateAsync(server, $"{root}/plain", s_content);
        var before = server.DataDirectorySnapshot();

        using var response = await PutAsync(server, $"{root}/plain/below.bin", Content(10));

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.Conflict);
        Assert.Equal(before, server.DataDirectorySnapshot());
        await AssertStoredAsync(server, $"{root}/plain", s_content);
    }
}
