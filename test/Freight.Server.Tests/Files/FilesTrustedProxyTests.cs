using System.Net;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Files;

/// <summary>
/// Behind a reverse proxy every request comes from the proxy's address: with <c>Freight:TrustedProxies</c> the per-client
/// upload limit counts the clients its <c>X-Forwarded-For</c> names; without it the header is ignored, since any client
/// can forge it. One upload in flight per client, held open on a raw connection.
/// </summary>
public sealed class FilesTrustedProxyTests(FilesTrustedProxyTests.TrustedProxyServer trusted, LimiterFilesServer untrusted)
    : IClassFixture<FilesTrustedProxyTests.TrustedProxyServer>, IClassFixture<LimiterFilesServer>
{
    private const int Declared = 2 * Payloads.MiB;

    [Fact]
    public async Task Put_BehindATrustedProxy_EachForwardedClientHasItsOwnSlot()
    {
        var root = NewRoot();
        await using var held = await HoldUploadAsync(trusted, $"{root}/held.bin", "10.0.0.1");

        using (var otherClient = await PutAsync(trusted, $"{root}/other.bin", Content(1000, seed: 31), ("X-Forwarded-For", "10.0.0.2")))
        {
            await AssertStatusAsync(otherClient, HttpStatusCode.Created);
        }

        using var sameClient = await PutAsync(trusted, $"{root}/same.bin", Content(1000, seed: 32), ("X-Forwarded-For", "10.0.0.1"));
        await ProblemAssert.IsProblemAsync(sameClient, HttpStatusCode.TooManyRequests);
    }

    [Fact]
    public async Task Put_ForwardedForFromAnUntrustedPeer_IsIgnored()
    {
        var root = NewRoot();
        await using var held = await HoldUploadAsync(untrusted, $"{root}/held.bin", "10.0.0.1");

        using var forged = await PutAsync(untrusted, $"{root}/forged.bin", Content(1000, seed: 33), ("X-Forwarded-For", "10.0.0.2"));

        await ProblemAssert.IsProblemAsync(forged, HttpStatusCode.TooManyRequests);
        Assert.Null(await ListedAsync(untrusted, $"{root}/forged.bin"));
    }

    /// <summary>A PUT from <paramref name="forwardedFor"/> that has sent half its body and waits: its slot is taken.</summary>
    private static async Task<RawHttpConnection> HoldUploadAsync(FilesServer server, string key, string forwardedFor)
    {
        var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);
        await connection.SendAsync(RawHttpConnection.Head("PUT", server.HttpAddress, "/files/" + key, "Content-Length: " + Declared.ToString(System.Globalization.CultureInfo.InvariantCulture), "X-Forwarded-For: " + forwardedFor));
        await connection.SendAsync(Content(Declared / 2, seed: 30));
        Assert.True(await EventuallyAsync(() => server.FilesTempFiles().Any(temp => new FileInfo(temp).Length > 0)), "the held upload never started writing");
        return connection;
    }

    public sealed class TrustedProxyServer() : FilesServer("--Freight:Files:MaxConcurrentUploadsPerClient", "1", "--Freight:TrustedProxies:0", "127.0.0.1");
}
