using System.Net;
using System.Text;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Files;

/// <summary>
/// Paths that could climb out of the store, alias its own files, or not be a file name are refused with 400
/// before anything is written. Sent on raw sockets: HttpClient would normalize or re-encode several of them.
/// </summary>
public sealed class FilesPathTests(FileSystemFilesServer server) : IClassFixture<FileSystemFilesServer>
{
    private static readonly byte[] s_body = "hello"u8.ToArray();

    public static TheoryData<string> BadPaths() =>
    [
        "..%2Fescape.txt",
        "a/..%2F..%2Fescape.txt",
        "a%2Fb.txt",
        "a%5Cb.txt",
        "..%5C..%5Cescape.txt",
        "a%01b.txt",
        "a%7Fb.txt",
        "a%C2%85b.txt",
        "a//b.txt",
        "dir/",
        "",
        ".x.freight-meta",
        "a/.freight",
        "b.freight-tmp",
        "a/.B.FREIGHT-META",
        new string('a', 241),
        string.Join('/', Enumerable.Repeat(new string('k', 205), 5)),
    ];

    [Theory]
    [MemberData(nameof(BadPaths))]
    public async Task Put_BadPath_Returns400ProblemAndWritesNothing(string path)
    {
        var before = server.DataDirectorySnapshot();
        var head = RawHttpConnection.Head("PUT", server.HttpAddress, "/files/" + path, "Content-Length: " + Invariant(s_body.Length));

        var response = await RawAsync(server.HttpAddress, head, s_body);

        ProblemAssert.IsProblem(response, HttpStatusCode.BadRequest);
        Assert.Equal(before, server.DataDirectorySnapshot());
        Assert.Empty(server.TempFiles());
    }

    [Theory]
    [InlineData("GET")]
    [InlineData("DELETE")]
    public async Task OtherMethods_TraversalPath_Return400Problem(string method)
    {
        var before = server.DataDirectorySnapshot();
        var head = RawHttpConnection.Head(method, server.HttpAddress, "/files/a/..%2F..%2Fescape.txt");

        var response = await RawAsync(server.HttpAddress, head);

        ProblemAssert.IsProblem(response, HttpStatusCode.BadRequest);
        Assert.Equal(before, server.DataDirectorySnapshot());
    }

    [Fact]
    public async Task Put_EncodedNul_IsRefusedWith400ByKestrel()
    {
        var before = server.DataDirectorySnapshot();
        var head = RawHttpConnection.Head("PUT", server.HttpAddress, "/files/a%00b.txt", "Content-Length: " + Invariant(s_body.Length));

        var response = await RawAsync(server.HttpAddress, head, s_body);

        // Kestrel refuses %00 in the path itself (its own plain 400, not a problem document).
        Assert.Equal(400, response.StatusCode);
        Assert.Equal(before, server.DataDirectorySnapshot());
    }

    [Fact]
    public async Task Put_SegmentOf240Bytes_IsStored()
    {
        // The limit's other side: 240 bytes is allowed, so the 241-byte refusal is about the length.
        var key = $"{NewRoot()}/{new string('b', 236)}.bin";
        Assert.Equal(240, Encoding.UTF8.GetByteCount(key[(key.IndexOf('/', StringComparison.Ordinal) + 1)..]));

        using var response = await PutAsync(server, key, s_body);

        await AssertStatusAsync(response, HttpStatusCode.Created);
        Assert.Equal(s_body, await File.ReadAllBytesAsync(server.DiskPath(key)));
    }

    [Fact]
    public async Task Put_HiddenNameAndUnicode_AreStoredAsGiven()
    {
        // Only the store's own '.freight*' names are reserved; other dot-names and non-ASCII names are files.
        var root = NewRoot();
        var head = RawHttpConnection.Head("PUT", server.HttpAddress, $"/files/{root}/.env", "Content-Length: " + Invariant(s_body.Length));
        var response = await RawAsync(server.HttpAddress, head, s_body);
        Assert.Equal(201, response.StatusCode);
        Assert.Equal(s_body, await File.ReadAllBytesAsync(server.DiskPath($"{root}/.env")));

        head = RawHttpConnection.Head("PUT", server.HttpAddress, $"/files/{root}/caf%C3%A9.txt", "Content-Length: " + Invariant(s_body.Length));
        response = await RawAsync(server.HttpAddress, head, s_body);
        Assert.Equal(201, response.StatusCode);
        Assert.Equal(s_body, await File.ReadAllBytesAsync(server.DiskPath($"{root}/café.txt")));
    }
}
