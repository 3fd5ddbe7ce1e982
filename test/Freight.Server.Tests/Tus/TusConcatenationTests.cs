using System.Net;
using Freight.Server.Tests.Sample;
using static Freight.Server.Tests.Files.FilesApi;
using static Freight.Server.Tests.Tus.TusApi;

namespace Freight.Server.Tests.Tus;

/// <summary>
/// The concatenation extension: partial uploads never become files; a final upload joins complete partials
/// in the order it names them into the file at once, and the partials go. A final upload naming a part that
/// is unfinished, unknown or not partial is 400 and changes nothing. One contract, run against each store.
/// </summary>
public abstract class TusConcatenationTests(TusServer server)
{
    private static readonly byte[][] s_parts = [Content(300_000, seed: 101), Content(1, seed: 102), Content(700_001, seed: 103)];

    [Fact]
    public async Task Final_ThreeCompletePartials_JoinsThemInOrderIntoTheFile()
    {
        var key = NewFileName("joined.bin");
        var partKeys = new List<string>();
        var paths = new List<string>();
        foreach (var part in s_parts)
        {
            // A filename on a partial names no file: partials never become files.
            var partKey = NewFileName("part.bin");
            partKeys.Add(partKey);
            var path = await CreatePartialAsync(part.Length, partKey);
            await PatchAllAsync(server, path, part, 256 * 1024);
            using var head = await HeadAsync(server, path);
            Assert.Equal("partial", Header(head, "Upload-Concat"));
            Assert.Equal(part.Length, Offset(head));
            Assert.Null(Header(head, "Content-Location"));
            await AssertNoFileAsync(server, partKey);
            paths.Add(path);
        }

        var concat = "final;" + string.Join(' ', paths);
        using var response = await PostAsync(server, [("Upload-Concat", concat), ("Upload-Metadata", Metadata(("filename", key)))]);

        var final = await CreatedAsync(response);
        Assert.Equal("/files/" + key, Header(response, "Content-Location"));
        byte[] joined = [.. s_parts[0], .. s_parts[1], .. s_parts[2]];
        await AssertFileAsync(server, key, joined);
        using (var head = await HeadAsync(server, final))
        {
            Assert.Equal(HttpStatusCode.OK, head.StatusCode);
            Assert.Equal(concat, Header(head, "Upload-Concat"));
            Assert.Equal(joined.Length, Offset(head));
            Assert.Equal(Invariant(joined.Length), Header(head, "Upload-Length"));
        }

        foreach (var path in paths)
        {
            Assert.Equal(HttpStatusCode.NotFound, await HeadStatusAsync(server, path));
            if (server.TusDirectory is not null)
            {
                Assert.DoesNotContain(server.TusFiles(), name => name.StartsWith(Id(path), StringComparison.Ordinal));
            }
        }

        foreach (var partKey in partKeys)
        {
            await AssertNoFileAsync(server, partKey);
        }

        if (server.TusDirectory is not null)
        {
            Assert.Null(server.StoredBytes(Id(final)));
        }
    }

    [Fact]
    public async Task Final_PartsNamedInAnotherOrder_JoinsThemInThatOrder()
    {
        var key = NewFileName("reversed.bin");
        var paths = new List<string>();
        foreach (var part in s_parts)
        {
            var path = await CreatePartialAsync(part.Length);
            await PatchAllAsync(server, path, part, part.Length);
            paths.Add(path);
        }

        using var response = await PostAsync(server, [("Upload-Concat", $"final;{paths[2]} {paths[0]} {paths[1]}"), ("Upload-Metadata", Metadata(("filename", key)))]);

        await CreatedAsync(response);
        await AssertFileAsync(server, key, [.. s_parts[2], .. s_parts[0], .. s_parts[1]]);
    }

    [Fact]
    public async Task Final_PartsNamedByAbsoluteUrl_AreJoined()
    {
        var key = NewFileName("absolute.bin");
        var first = await CreatePartialAsync(s_parts[0].Length);
        var second = await CreatePartialAsync(s_parts[2].Length);
        await PatchAllAsync(server, first, s_parts[0], s_parts[0].Length);
        await PatchAllAsync(server, second, s_parts[2], s_parts[2].Length);

        var absolute = $"final;{new Uri(server.HttpAddress, first)} {new Uri(server.HttpAddress, second)}";
        using var response = await PostAsync(server, [("Upload-Concat", absolute), ("Upload-Metadata", Metadata(("filename", key)))]);

        await CreatedAsync(response);
        await AssertFileAsync(server, key, [.. s_parts[0], .. s_parts[2]]);
    }

    [Fact]
    public async Task Final_WithAnUnfinishedPartial_Returns400AndChangesNothing()
    {
        var key = NewFileName("incomplete.bin");
        var done = await CreatePartialAsync(s_parts[0].Length);
        await PatchAllAsync(server, done, s_parts[0], s_parts[0].Length);
        var unfinished = await CreatePartialAsync(s_parts[2].Length);
        await PatchAllAsync(server, unfinished, s_parts[2][..1000], 1000);
        var before = server.TusFiles();

        using var response = await PostAsync(server, [("Upload-Concat", $"final;{done} {unfinished}"), ("Upload-Metadata", Metadata(("filename", key)))]);

        await AssertRefusedAsync(response, HttpStatusCode.BadRequest);
        Assert.Null(response.Headers.Location);
        Assert.Equal(before, server.TusFiles());
        await AssertNoFileAsync(server, key);
        Assert.Equal(s_parts[0].Length, await OffsetAsync(server, done));
        Assert.Equal(1000, await OffsetAsync(server, unfinished));

        // Once the part is finished, the same final upload succeeds.
        await PatchAllAsync(server, unfinished, s_parts[2], s_parts[2].Length, from: 1000);
        using var retry = await PostAsync(server, [("Upload-Concat", $"final;{done} {unfinished}"), ("Upload-Metadata", Metadata(("filename", key)))]);
        await CreatedAsync(retry);
        await AssertFileAsync(server, key, [.. s_parts[0], .. s_parts[2]]);
    }

    [Fact]
    public async Task Final_WithAnUnknownOrRegularUpload_Returns400AndChangesNothing()
    {
        var key = NewFileName("unknown.bin");
        var done = await CreatePartialAsync(s_parts[0].Length);
        await PatchAllAsync(server, done, s_parts[0], s_parts[0].Length);
        var regular = await CreateAsync(server, s_parts[1].Length + 1);
        await PatchAllAsync(server, regular, s_parts[1], 1);
        var before = server.TusFiles();

        foreach (var other in new[] { "/tus/0123456789abcdef0123456789abcdef", regular, "/files/x", "/tus/not-an-id" })
        {
            using var response = await PostAsync(server, [("Upload-Concat", $"final;{done} {other}"), ("Upload-Metadata", Metadata(("filename", key)))]);
            await AssertRefusedAsync(response, HttpStatusCode.BadRequest);
        }

        Assert.Equal(before, server.TusFiles());
        await AssertNoFileAsync(server, key);
        Assert.Equal(s_parts[0].Length, await OffsetAsync(server, done));
    }

    [Theory]
    [InlineData("Upload-Length", "300000")]
    [InlineData("Upload-Defer-Length", "1")]
    public async Task Final_WithALength_Returns400(string header, string value)
    {
        var done = await CreatePartialAsync(s_parts[0].Length);
        await PatchAllAsync(server, done, s_parts[0], s_parts[0].Length);

        using var response = await PostAsync(server, [("Upload-Concat", "final;" + done), (header, value)]);

        await AssertRefusedAsync(response, HttpStatusCode.BadRequest);
        Assert.Equal(s_parts[0].Length, await OffsetAsync(server, done));
    }

    [Theory]
    [InlineData("parts")]
    [InlineData("final")]
    [InlineData("final;")]
    public async Task Post_MalformedUploadConcat_Returns400AndCreatesNothing(string concat)
    {
        var before = server.TusFiles();

        using var response = await PostAsync(server, [("Upload-Concat", concat), ("Upload-Length", "10")]);

        await AssertRefusedAsync(response, HttpStatusCode.BadRequest);
        Assert.Equal(before, server.TusFiles());
    }

    [Fact]
    public async Task Patch_FinalUpload_Returns403()
    {
        var key = NewFileName("final.bin");
        var done = await CreatePartialAsync(s_parts[0].Length);
        await PatchAllAsync(server, done, s_parts[0], s_parts[0].Length);
        using var created = await PostAsync(server, [("Upload-Concat", "final;" + done), ("Upload-Metadata", Metadata(("filename", key)))]);
        var final = await CreatedAsync(created);

        using var response = await PatchAsync(server, final, s_parts[0].Length, Content(10, seed: 104));

        await AssertRefusedAsync(response, HttpStatusCode.Forbidden);
        Assert.Equal(s_parts[0].Length, await OffsetAsync(server, final));
        await AssertFileAsync(server, key, s_parts[0]);
    }

    private async Task<string> CreatePartialAsync(long length, string? fileName = null) =>
        await CreateAsync(server, length, fileName, headers: ("Upload-Concat", "partial"));
}

public sealed class TusConcatenationFileSystemTests(FileSystemTusServer server) : TusConcatenationTests(server), IClassFixture<FileSystemTusServer>;

public sealed class TusConcatenationMemoryTests(MemoryTusServer server) : TusConcatenationTests(server), IClassFixture<MemoryTusServer>;

public sealed class TusConcatenationS3Tests(S3TusServer server) : TusConcatenationTests(server), IClassFixture<S3TusServer>;

public sealed class TusConcatenationSampleTests(SampleTusServer server) : TusConcatenationTests(server), IClassFixture<SampleTusServer>;
