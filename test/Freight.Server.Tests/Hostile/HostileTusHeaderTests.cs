using System.Net;
using System.Text;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Tus;
using static Freight.Server.Tests.Files.FilesApi;
using static Freight.Server.Tests.Tus.TusApi;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// tus headers built to overflow or confuse (numbers at and past 2^63, signs and padding, odd metadata keys,
/// Upload-Concat garbage, repeated versions): each is refused with its status and a problem+json before an
/// upload is created or a byte is taken, and an upload under way keeps its offset and bytes — on each store,
/// over HTTP/1.1 and HTTP/2. (The plain malformed cases are in TusCreationTests and TusCoreTests.)
/// </summary>
public abstract class HostileTusHeaderTests(TusServer server)
{
    private static readonly byte[] s_content = Content(3000, seed: 101);

    public static TheoryData<string, string, int, Protocol> BadCreations()
    {
        var cases = new TheoryData<string, string, int, Protocol>();
        foreach (var protocol in new[] { Protocol.Http11, Protocol.Http2 })
        {
            foreach (var (name, value, status) in new[]
            {
                ("Upload-Length", "9223372036854775808", 400),
                ("Upload-Length", "99999999999999999999999", 400),
                ("Upload-Length", "9223372036854775807", 413),
                ("Upload-Length", "+5", 400),
                ("Upload-Length", "5,5", 400),
                ("Upload-Length", "0x5", 400),
                ("Upload-Metadata", "key\u0001 eA==", 400),
                ("Upload-Metadata", "filename eA==,filename eA==", 400),
                ("Upload-Metadata", "filename eA", 400),
                ("Upload-Metadata", "filename eA==,,", 400),
                ("Upload-Metadata", "filename " + Convert.ToBase64String(Encoding.UTF8.GetBytes("../../outside.bin")), 400),
                ("Upload-Metadata", "filename " + Convert.ToBase64String([0xFF, 0xFE]), 400),
                ("Upload-Concat", "FINAL;/tus/x", 400),
                ("Upload-Concat", "partial, final;/tus/x", 400),
                ("Upload-Concat", "final;http://elsewhere.example/tus/x", 400),
                ("Upload-Concat", "final;/tus/../files/x", 400),
                ("Upload-Concat", "final;/tus/" + new string('0', 32) + " /tus/" + new string('0', 32), 400),
            })
            {
                cases.Add(name, value, status, protocol);
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(BadCreations))]
    public async Task Post_OverflowingOrGarbledHeader_IsRefusedAndCreatesNothing(string name, string value, int status, Protocol protocol)
    {
        var before = server.TusFiles();
        (string, string)[] headers = name == "Upload-Length" || name == "Upload-Concat" && value.StartsWith("final", StringComparison.Ordinal)
            ? [(name, value)]
            : [("Upload-Length", "10"), (name, value)];

        using var response = await PostAsync(server, headers, protocol: protocol);

        await AssertRefusedAsync(response, (HttpStatusCode)status);
        Assert.Null(response.Headers.Location);
        Assert.Equal(before, server.TusFiles());
    }

    /// <summary>Metadata is bounded by Kestrel's header limits, not by a parser that falls over: 3,000 pairs are kept and echoed by HEAD.</summary>
    [Fact]
    public async Task Post_ThousandsOfMetadataPairs_AreKeptAndEchoed()
    {
        var metadata = string.Join(',', Enumerable.Range(0, 3000).Select(i => $"k{i} eA=="));

        var path = await CreateAsync(server, 10, headers: ("Upload-Metadata", metadata));

        using var head = await HeadAsync(server, path);
        Assert.Equal(HttpStatusCode.OK, head.StatusCode);
        Assert.Equal(metadata.Split(',').Order(StringComparer.Ordinal), Header(head, "Upload-Metadata")!.Split(',').Order(StringComparer.Ordinal));
        using var deleted = await DeleteAsync(server, path);
        Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
    }

    public static TheoryData<string, string, int, Protocol> BadPatches()
    {
        var cases = new TheoryData<string, string, int, Protocol>();
        foreach (var protocol in new[] { Protocol.Http11, Protocol.Http2 })
        {
            foreach (var (name, value, status) in new[]
            {
                ("Upload-Offset", "99999999999999999999", 400),
                ("Upload-Offset", "9223372036854775808", 400),
                ("Upload-Offset", "9223372036854775807", 409),
                ("Upload-Offset", "-0", 400),
                ("Upload-Offset", "+1000", 400),
                // Leading zeros are the same number: accepted.
                ("Upload-Offset", "01000", 0),
                ("Upload-Length", "99999999999999999999", 400),
                ("Upload-Length", "-3000", 400),
                ("Upload-Checksum", "sha1 !!!", 400),
                ("Upload-Checksum", "sha1", 400),
                ("Upload-Checksum", "crc32 AAAA", 400),
                ("Tus-Resumable", "1.0.0, 1.0.0", 412),
                ("Tus-Resumable", "1.0", 412),
            })
            {
                cases.Add(name, value, status, protocol);
            }
        }

        return cases;
    }

    /// <summary>A PATCH at offset 1000 with one header garbled: refused, and the upload still holds its 1000 bytes (status 0: the header is fine after all).</summary>
    [Theory]
    [MemberData(nameof(BadPatches))]
    public async Task Patch_OverflowingOrGarbledHeader_IsRefusedAndTheUploadKeepsItsBytes(string name, string value, int status, Protocol protocol)
    {
        var key = TusApi.NewFileName();
        var path = await TusApi.CreateAsync(server, s_content.Length, key);
        await PatchAllAsync(server, path, s_content[..1000], 1000);

        using var request = TusApi.Request(server, HttpMethod.Patch, path, protocol, resumable: name == "Tus-Resumable" ? null : TusApi.Version);
        request.Content = Body(s_content[1000..2000]);
        AddHeaders(request, name == "Upload-Offset" ? [(name, value)] : [("Upload-Offset", "1000"), (name, value)]);
        using var response = await server.Client.SendAsync(request);

        if (status == 0)
        {
            await AssertStatusAsync(response, HttpStatusCode.NoContent);
            return;
        }

        await AssertRefusedAsync(response, (HttpStatusCode)status);
        await AssertHoldsAsync(server, path, s_content, 1000, key);
    }
}

public sealed class HostileTusHeaderFileSystemTests(FileSystemTusServer server) : HostileTusHeaderTests(server), IClassFixture<FileSystemTusServer>;

public sealed class HostileTusHeaderMemoryTests(MemoryTusServer server) : HostileTusHeaderTests(server), IClassFixture<MemoryTusServer>;

public sealed class HostileTusHeaderS3Tests(S3TusServer server) : HostileTusHeaderTests(server), IClassFixture<S3TusServer>;
