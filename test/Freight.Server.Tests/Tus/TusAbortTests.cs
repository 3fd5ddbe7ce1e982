using System.Net;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Sample;
using static Freight.Server.Tests.Files.FilesApi;
using static Freight.Server.Tests.Tus.TusApi;

namespace Freight.Server.Tests.Tus;

/// <summary>
/// One writer per upload, and what a broken PATCH leaves: a second PATCH while one is in flight is 423 and
/// changes nothing; a PATCH cut off mid-body keeps the bytes that arrived — exactly the source's prefix, so
/// the upload resumes from HEAD's offset — unless it carried Upload-Checksum, which they cannot meet. One
/// contract, run against each store.
/// </summary>
public abstract class TusAbortTests(TusServer server)
{
    private const int Size = 16 * Payloads.MiB;

    // What a PATCH sends before the test looks at the server: more than one S3 part (5 MiB with the S3 fixture),
    // so every store shows the PATCH's progress in HEAD's offset while it is still in flight.
    private const int InFlight = 6 * Payloads.MiB;

    public enum Cut
    {
        /// <summary>SO_LINGER 0: the close sends a TCP RST.</summary>
        Reset,

        /// <summary>A plain close: FIN, the body ends short of its Content-Length.</summary>
        Close,
    }

    [Theory]
    [InlineData(Protocol.Http11)]
    [InlineData(Protocol.Http2)]
    public async Task Patch_WhileAnotherPatchOfTheUploadIsInFlight_Returns423AndTheFirstCompletes(Protocol protocol)
    {
        var key = NewFileName();
        var content = Content(Size, seed: 131);
        var path = await CreateAsync(server, Size, key, protocol);
        await PatchAllAsync(server, path, content[..Payloads.MiB], Payloads.MiB, protocol: protocol);

        // The first PATCH sends part of its bytes and waits: the server stores what it got and holds the upload.
        var gated = new GatedContent(content[Payloads.MiB..], InFlight);
        using var first = Request(server, HttpMethod.Patch, path, protocol);
        first.Content = gated;
        AddHeaders(first, ("Upload-Offset", Invariant(Payloads.MiB)));
        var sending = server.Client.SendAsync(first);
        try
        {
            Assert.True(await PollUntilAsync(async () => await OffsetAsync(server, path) > Payloads.MiB), "the first PATCH never started storing");

            foreach (var offset in new[] { (long)Payloads.MiB, await OffsetAsync(server, path) })
            {
                using var second = await PatchAsync(server, path, offset, Content(1000, seed: 132), protocol);
                await AssertRefusedAsync(second, HttpStatusCode.Locked);
                Assert.NotNull(Header(second, "Retry-After"));
            }

            await AssertNoFileAsync(server, key);
        }
        finally
        {
            gated.Release();
        }

        using var done = await sending;
        await AssertStatusAsync(done, HttpStatusCode.NoContent);
        Assert.Equal(Size, Offset(done));
        await AssertFileAsync(server, key, content);
    }

    [Theory]
    [InlineData(Cut.Reset)]
    [InlineData(Cut.Close)]
    public async Task Patch_CutOffMidBody_KeepsThePrefixThatArrivedAndResumesFromHeadsOffset(Cut cut)
    {
        var key = NewFileName();
        var content = Content(Size, seed: 133);
        var path = await CreateAsync(server, Size, key);
        await PatchAllAsync(server, path, content[..Payloads.MiB], Payloads.MiB);
        const int Declared = 2 * InFlight;

        await using (var connection = await RawHttpConnection.OpenAsync(server.HttpAddress))
        {
            await connection.SendAsync(RawHttpConnection.Head("PATCH", server.HttpAddress, path,
                "Tus-Resumable: 1.0.0", "Content-Type: " + OffsetStream, "Upload-Offset: " + Invariant(Payloads.MiB), "Content-Length: " + Invariant(Declared)));
            await connection.SendAsync(content[Payloads.MiB..(Payloads.MiB + (Declared / 2))]);
            Assert.True(await PollUntilAsync(async () => await OffsetAsync(server, path) > Payloads.MiB), "the PATCH never started storing");
            if (cut == Cut.Reset)
            {
                connection.Reset();
            }
            else
            {
                connection.Close();
            }
        }

        var kept = await SettledOffsetAsync(server, path);

        Assert.InRange(kept, Payloads.MiB + 1, Payloads.MiB + (Declared / 2));
        await AssertHoldsAsync(server, path, content, kept, key);
        await PatchAllAsync(server, path, content, Payloads.MiB, from: kept);
        await AssertFileAsync(server, key, content);
    }

    [Theory]
    [InlineData(Cut.Reset)]
    [InlineData(Cut.Close)]
    public async Task Patch_WithChecksumCutOffMidBody_KeepsNothingOfTheChunk(Cut cut)
    {
        var key = NewFileName();
        var content = Content(Size, seed: 134);
        var path = await CreateAsync(server, Size, key);
        await PatchAllAsync(server, path, content[..Payloads.MiB], Payloads.MiB);
        var chunk = content[Payloads.MiB..(Payloads.MiB + (2 * InFlight))];

        await using (var connection = await RawHttpConnection.OpenAsync(server.HttpAddress))
        {
            await connection.SendAsync(RawHttpConnection.Head("PATCH", server.HttpAddress, path,
                "Tus-Resumable: 1.0.0", "Content-Type: " + OffsetStream, "Upload-Offset: " + Invariant(Payloads.MiB),
                "Content-Length: " + Invariant(chunk.Length), "Upload-Checksum: " + TusChecksumTests.Checksum("sha256", chunk)));
            await connection.SendAsync(chunk[..(chunk.Length / 2)]);
            Assert.True(await PollUntilAsync(async () => await OffsetAsync(server, path) > Payloads.MiB), "the PATCH never started storing");
            if (cut == Cut.Reset)
            {
                connection.Reset();
            }
            else
            {
                connection.Close();
            }
        }

        Assert.Equal(Payloads.MiB, await SettledOffsetAsync(server, path));
        await AssertHoldsAsync(server, path, content, Payloads.MiB, key);
        await PatchAllAsync(server, path, content, Payloads.MiB, from: Payloads.MiB);
        await AssertFileAsync(server, key, content);
    }

    [Fact]
    public async Task Delete_RightAfterACutOffPatch_WaitsForItAndRemovesTheUpload()
    {
        var key = NewFileName();
        var content = Content(Size, seed: 135);
        var path = await CreateAsync(server, Size, key);

        await using (var connection = await RawHttpConnection.OpenAsync(server.HttpAddress))
        {
            await connection.SendAsync(RawHttpConnection.Head("PATCH", server.HttpAddress, path,
                "Tus-Resumable: 1.0.0", "Content-Type: " + OffsetStream, "Upload-Offset: 0", "Content-Length: " + Invariant(Size)));
            await connection.SendAsync(content[..InFlight]);
            Assert.True(await PollUntilAsync(async () => await OffsetAsync(server, path) > 0), "the PATCH never started storing");
            connection.Reset();
        }

        using var deleted = await DeleteAsync(server, path);

        Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, await HeadStatusAsync(server, path));
        if (server.TusDirectory is not null)
        {
            Assert.DoesNotContain(server.TusFiles(), name => name.StartsWith(Id(path), StringComparison.Ordinal));
        }

        await AssertNoFileAsync(server, key);
    }
}

public sealed class TusAbortFileSystemTests(FileSystemTusServer server) : TusAbortTests(server), IClassFixture<FileSystemTusServer>;

public sealed class TusAbortMemoryTests(MemoryTusServer server) : TusAbortTests(server), IClassFixture<MemoryTusServer>;

public sealed class TusAbortS3Tests(S3TusServer server) : TusAbortTests(server), IClassFixture<S3TusServer>;

public sealed class TusAbortSampleTests(SampleTusServer server) : TusAbortTests(server), IClassFixture<SampleTusServer>;
