using System.Net;
using Freight.Lab.Json;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Json;

/// <summary>
/// Study 2's four variants answer the same records as equal JSON documents (parsed and compared), with the study's
/// settings, over HTTP/1.1 and HTTP/2, for no records, a few, and the study's 25 MB.
/// </summary>
public sealed class JsonEndpointTests(LabServer server) : IClassFixture<LabServer>
{
    /// <summary>Study 2's response was about 25 MB; the default payload must be at least that.</summary>
    private const int StudyBodyBytes = 25_000_000;

    public static TheoryData<string, int, Protocol> Cases()
    {
        var cases = new TheoryData<string, int, Protocol>();
        foreach (var variant in JsonDocuments.Variants)
        {
            cases.Add(variant, 0, Protocol.Http11);
            cases.Add(variant, 50, Protocol.Http11);
            cases.Add(variant, 50, Protocol.Http2);
            cases.Add(variant, LabRecordGenerator.DefaultRecordCount, Protocol.Http11);
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Json_AnyVariantAndCount_AnswersTheCanonicalDocument(string variant, int count, Protocol protocol)
    {
        using var request = server.Request(HttpMethod.Get, protocol, $"/lab/json/{variant}?records={count}");

        using var response = await server.Client.SendAsync(request);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(request.Version, response.Version);
        Assert.Equal(JsonDocuments.ContentType, response.Content.Headers.ContentType?.ToString());
        var body = await response.Content.ReadAsByteArrayAsync();
        await JsonDocuments.AssertIsDocumentAsync(body, count);
    }

    [Theory]
    [MemberData(nameof(VariantNames))]
    public async Task Json_NoRecordCount_AnswersTheStudysTwentyFiveMegabytes(string variant)
    {
        using var request = server.Request(HttpMethod.Get, Protocol.Http11, $"/lab/json/{variant}");

        using var response = await server.Client.SendAsync(request);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        var body = await response.Content.ReadAsByteArrayAsync();
        Assert.True(body.Length >= StudyBodyBytes, $"{body.Length} bytes");
        if (variant == "newtonsoft-buffered")
        {
            // Buffered to the end before the first byte goes out, so the length is known.
            Assert.Equal(body.Length, response.Content.Headers.ContentLength);
        }

        await JsonDocuments.AssertIsDocumentAsync(body, LabRecordGenerator.DefaultRecordCount);
    }

    public static TheoryData<string> VariantNames() => new(JsonDocuments.Variants);

    public static TheoryData<string, string> BadCounts()
    {
        var cases = new TheoryData<string, string>();
        foreach (var variant in JsonDocuments.Variants)
        {
            foreach (var records in new[] { "-1", "abc", "1e3", "2000001", "99999999999" })
            {
                cases.Add(variant, records);
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(BadCounts))]
    public async Task Json_RecordCountNotAWholeNumberUpToTheMaximum_Answers400Problem(string variant, string records)
    {
        using var request = server.Request(HttpMethod.Get, Protocol.Http11, $"/lab/json/{variant}?records={records}");

        using var response = await server.Client.SendAsync(request);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
        await server.AssertServingAsync();
    }
}
