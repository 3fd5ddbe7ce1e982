using System.Net;
using System.Text;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Errors;

/// <summary>
/// Malformed multipart bodies get 400 <c>application/problem+json</c>, never a 500, from every multipart
/// variant, and the server keeps serving.
/// </summary>
public sealed class MalformedMultipartTests(LabServer server) : IClassFixture<LabServer>
{
    public enum Malformation
    {
        /// <summary>Content-Type <c>multipart/form-data</c> with no boundary parameter (RFC 7578 §4.1 requires one).</summary>
        MissingBoundaryParameter,

        /// <summary>The body ends after a part's data, without the close delimiter (RFC 2046 §5.1.1).</summary>
        MissingClosingBoundary,

        /// <summary>A part whose header block is larger than the 16 KiB limit.</summary>
        OversizedPartHeaders,

        /// <summary>Bytes with no delimiter at all.</summary>
        GarbageBody,
    }

    public static TheoryData<string, Malformation, Protocol> Cases()
    {
        var cases = new TheoryData<string, Malformation, Protocol>();
        foreach (var variant in LabVariants.MultipartUploads)
        {
            foreach (var malformation in Enum.GetValues<Malformation>())
            {
                cases.Add(variant, malformation, Protocol.Http11);
                cases.Add(variant, malformation, Protocol.Http2);
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Upload_MalformedMultipart_Returns400Problem(string variant, Malformation malformation, Protocol protocol)
    {
        var (contentType, body) = Build(malformation);
        using var request = server.Request(HttpMethod.Post, protocol, $"/lab/upload/{variant}?sink=file");
        request.Content = new ByteArrayContent(body);
        Assert.True(request.Content.Headers.TryAddWithoutValidation("Content-Type", contentType));

        using var response = await server.Client.SendAsync(request);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
        Assert.Empty(server.UploadedFiles());
        Assert.Empty(server.TempFiles());
        await server.AssertServingAsync();
    }

    private static (string ContentType, byte[] Body) Build(Malformation malformation)
    {
        var file = Payloads.Bytes(4096);
        return malformation switch
        {
            Malformation.MissingBoundaryParameter => ("multipart/form-data", MultipartBodies.Complete(file)),
            Malformation.MissingClosingBoundary => (MultipartBodies.ContentType, [.. MultipartBodies.Head(), .. file]),
            Malformation.OversizedPartHeaders => (
                MultipartBodies.ContentType,
                [.. MultipartBodies.Head("X-Padding: " + new string('a', 17 * 1024) + "\r\n"), .. file, .. MultipartBodies.Tail()]),
            Malformation.GarbageBody => (MultipartBodies.ContentType, Encoding.ASCII.GetBytes(Convert.ToBase64String(file))),
            _ => throw new ArgumentOutOfRangeException(nameof(malformation)),
        };
    }
}
