using System.Net;
using System.Net.Http.Headers;
using System.Text.Json;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Lab;

/// <summary>
/// Every upload variant receives the deterministic payload byte for byte, over HTTP/1.1 and HTTP/2,
/// with a known length and chunked, and the file sink stores exactly those bytes, atomically.
/// </summary>
public sealed class LabUploadTests(LabServer server) : IClassFixture<LabServer>
{
    public static TheoryData<string, int, Protocol, Framing, Sink> Cases()
    {
        var cases = new TheoryData<string, int, Protocol, Framing, Sink>();
        foreach (var variant in LabVariants.Uploads)
        {
            foreach (var size in Payloads.Sizes)
            {
                // Every size goes through both sinks and both framings; the file sink once per protocol.
                cases.Add(variant, size, Protocol.Http11, Framing.ContentLength, Sink.File);
                cases.Add(variant, size, Protocol.Http11, Framing.Chunked, Sink.Memory);
                cases.Add(variant, size, Protocol.Http2, Framing.ContentLength, Sink.Memory);
                cases.Add(variant, size, Protocol.Http2, Framing.Chunked, Sink.File);
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Upload_AnyVariantSizeProtocolAndFraming_ReceivesTheExactPayload(string variant, int size, Protocol protocol, Framing framing, Sink sink)
    {
        var stored = Path.Combine(server.UploadsDirectory, variant + ".bin");
        if (File.Exists(stored))
        {
            File.Delete(stored);
        }

        using var request = server.Request(HttpMethod.Post, protocol, $"/lab/upload/{variant}?sink={sink.ToString().ToLowerInvariant()}");
        request.Content = Body(variant, Payloads.Bytes(size), framing);
        Assert.Equal(framing == Framing.ContentLength, request.Content.Headers.ContentLength is not null);
        if (framing == Framing.Chunked && protocol == Protocol.Http11)
        {
            request.Headers.TransferEncodingChunked = true;
        }

        using var response = await server.Client.SendAsync(request);

        var text = await response.Content.ReadAsStringAsync();
        Assert.True(response.StatusCode == HttpStatusCode.OK, text);
        Assert.Equal(request.Version, response.Version);
        using var answer = JsonDocument.Parse(text);
        Assert.Equal(size, answer.RootElement.GetProperty("bytes").GetInt64());
        Assert.Equal(Payloads.Hash(size), answer.RootElement.GetProperty("hash").GetString());
        if (LabVariants.IsMultipart(variant))
        {
            Assert.Equal("42", answer.RootElement.GetProperty("fields").GetProperty("SomeValue").GetString());
        }

        if (sink == Sink.File)
        {
            Assert.Equal(Payloads.Hash(size), Payloads.Hash(await File.ReadAllBytesAsync(stored)));
        }
        else
        {
            Assert.False(File.Exists(stored));
        }

        Assert.Empty(server.TempFiles());
    }

    private static HttpContent Body(string variant, byte[] payload, Framing framing)
    {
        HttpContent file = framing == Framing.ContentLength
            ? new ByteArrayContent(payload)
            : new StreamContent(new ForwardOnlyStream(payload));
        file.Headers.ContentType = new MediaTypeHeaderValue("application/octet-stream");
        if (!LabVariants.IsMultipart(variant))
        {
            return file;
        }

        return new MultipartFormDataContent(MultipartBodies.Boundary)
        {
            { new StringContent("42"), "SomeValue" },
            { file, "File", "payload.bin" },
        };
    }
}
