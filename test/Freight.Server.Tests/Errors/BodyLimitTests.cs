using System.Globalization;
using System.Net;
using System.Net.Http.Headers;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Errors;

/// <summary>
/// A body over <c>--max-body-bytes</c> (1 MiB here) is refused with 413 and leaves nothing in the data
/// directory: no stored file, no temp file.
/// </summary>
public sealed class BodyLimitTests(OneMiBLimitServer server) : IClassFixture<OneMiBLimitServer>
{
    private const int OverLimit = 2 * OneMiBLimitServer.Limit;

    public static TheoryData<string, Framing> Cases()
    {
        var cases = new TheoryData<string, Framing>();
        foreach (var variant in LabVariants.Uploads)
        {
            cases.Add(variant, Framing.ContentLength);
            cases.Add(variant, Framing.Chunked);
        }

        return cases;
    }

    /// <summary>
    /// HTTP/1.1 over a raw socket: the server answers before reading the whole body and then closes,
    /// which can make HttpClient fail on its send before it reads the answer. The socket sends the body
    /// in the background and reads the answer meanwhile, so the outcome does not depend on that race.
    /// </summary>
    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Upload_BodyOverLimitOnHttp11_Returns413AndKeepsNothing(string variant, Framing framing)
    {
        var body = Body(variant);
        var framingHeader = framing == Framing.ContentLength
            ? "Content-Length: " + body.Length.ToString(CultureInfo.InvariantCulture)
            : "Transfer-Encoding: chunked";
        byte[] wire = framing == Framing.ContentLength
            ? body
            : [.. RawHttpConnection.Chunked(body, 64 * 1024), .. RawHttpConnection.LastChunk];
        await using var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);
        await connection.SendAsync(RawHttpConnection.Head("POST", server.HttpAddress, $"/lab/upload/{variant}?sink=file", "Content-Type: " + LabVariants.ContentType(variant), framingHeader));

        var sending = connection.SendIgnoringServerCloseAsync(wire);
        var response = await connection.ReadResponseAsync();
        await connection.DisposeAsync();
        await sending;

        ProblemAssert.IsProblem(response, HttpStatusCode.RequestEntityTooLarge);
        Assert.Equal("close", response.Header("Connection"));
        Assert.Empty(server.UploadedFiles());
        Assert.Empty(server.TempFiles());
        await server.AssertServingAsync();
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Upload_BodyOverLimitOnHttp2_Returns413AndKeepsNothing(string variant, Framing framing)
    {
        var body = Body(variant);
        using var request = server.Request(HttpMethod.Post, Protocol.Http2, $"/lab/upload/{variant}?sink=file");
        request.Content = framing == Framing.ContentLength ? new ByteArrayContent(body) : new StreamContent(new ForwardOnlyStream(body));
        request.Content.Headers.ContentType = MediaTypeHeaderValue.Parse(LabVariants.ContentType(variant));

        using var response = await server.Client.SendAsync(request);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.RequestEntityTooLarge);
        Assert.Empty(server.UploadedFiles());
        Assert.Empty(server.TempFiles());
        await server.AssertServingAsync();
    }

    [Fact]
    public async Task Upload_BodyAtLimit_IsAccepted()
    {
        using var request = server.Request(HttpMethod.Post, Protocol.Http11, "/lab/upload/freight?sink=file");
        request.Content = new ByteArrayContent(Payloads.Bytes(OneMiBLimitServer.Limit));
        var stored = Path.Combine(server.UploadsDirectory, "freight.bin");
        try
        {
            using var response = await server.Client.SendAsync(request);

            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal(Payloads.Hash(OneMiBLimitServer.Limit), Payloads.Hash(await File.ReadAllBytesAsync(stored)));
        }
        finally
        {
            // The other tests of this class assert an empty upload directory.
            if (File.Exists(stored))
            {
                File.Delete(stored);
            }
        }
    }

    private static byte[] Body(string variant) =>
        LabVariants.IsMultipart(variant) ? MultipartBodies.Complete(Payloads.Bytes(OverLimit)) : Payloads.Bytes(OverLimit);
}
