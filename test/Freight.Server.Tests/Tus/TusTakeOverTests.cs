using System.Net;
using Freight.Resumable;
using Microsoft.Extensions.DependencyInjection;
using static Freight.Server.Tests.Files.FilesApi;
using static Freight.Server.Tests.Tus.TusApi;

namespace Freight.Server.Tests.Tus;

/// <summary>
/// A takeover has a bound: a holder that does not let go (held here by the test, as a request busy elsewhere past the
/// bound would hold it) leaves HEAD and PATCH a 423 once they waited it out, and the upload serves again once it is let go.
/// </summary>
public sealed class TusTakeOverTests(FileSystemTusServer server) : IClassFixture<FileSystemTusServer>
{
    [Fact]
    public async Task Head_WhileTheHolderDoesNotLetGo_AsksItAndAnswers423AfterTheBound()
    {
        var key = NewFileName();
        var content = Content(1000, seed: 140);
        var path = await CreateAsync(server, content.Length, key);
        var locks = server.Server.App.Services.GetRequiredService<ResumableUploadLocks>();

        Assert.True(locks.TryEnter(Id(path), out var held));
        using (held)
        {
            using var head = await HeadAsync(server, path);
            await AssertRefusedAsync(head, HttpStatusCode.Locked);
            Assert.Equal("1", Header(head, "Retry-After"));
            Assert.True(held.ReleaseRequested.IsCancellationRequested, "the HEAD never asked the holder to let go");
        }

        Assert.Equal(0, await OffsetAsync(server, path));
        await PatchAllAsync(server, path, content, content.Length);
        await AssertFileAsync(server, key, content);
    }
}
