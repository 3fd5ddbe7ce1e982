using System.Net;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Lab;

/// <summary>Every download variant serves the deterministic payload byte for byte, over HTTP/1.1 and HTTP/2.</summary>
public sealed class LabDownloadTests(LabServer server) : IClassFixture<LabServer>
{
    public static TheoryData<string, int, Protocol> Cases()
    {
        var cases = new TheoryData<string, int, Protocol>();
        foreach (var variant in LabVariants.Downloads)
        {
            foreach (var size in Payloads.Sizes)
            {
                cases.Add(variant, size, Protocol.Http11);
                cases.Add(variant, size, Protocol.Http2);
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Download_AnyVariantSizeAndProtocol_ServesTheExactPayload(string variant, int size, Protocol protocol)
    {
        using var request = server.Request(HttpMethod.Get, protocol, $"/lab/download/{variant}?size={size}");

        using var response = await server.Client.SendAsync(request, HttpCompletionOption.ResponseHeadersRead);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(request.Version, response.Version);
        Assert.Equal("application/octet-stream", response.Content.Headers.ContentType?.MediaType);
        if (variant == "stream-4k")
        {
            // The 2017 FileStreamResult: no length up front, so HTTP/1.1 frames the body in chunks.
            Assert.Null(response.Content.Headers.ContentLength);
            Assert.Equal(protocol == Protocol.Http11, response.Headers.TransferEncodingChunked == true);
        }
        else
        {
            Assert.Equal(size, response.Content.Headers.ContentLength);
        }

        await using var body = await response.Content.ReadAsStreamAsync();
        var (bytes, hash) = await Payloads.HashAsync(body);
        Assert.Equal(size, bytes);
        Assert.Equal(Payloads.Hash(size), hash);
    }
}
