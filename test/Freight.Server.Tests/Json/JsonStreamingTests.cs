using System.Net;
using Freight.Lab.Json;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Json;

/// <summary>
/// <c>json/stj-stream</c> streams: its first bytes reach the client while the producer is still held before the last
/// record (<c>?gate=</c>), and the document completes once the gate opens.
/// </summary>
public sealed class JsonStreamingTests(LabServer server) : IClassFixture<LabServer>
{
    // The server lets a forgotten gate go after 30 s; the first bytes must come well before, while it is surely closed.
    // A bound against a hang, not a timing assertion.
    private static readonly TimeSpan s_firstBytesPatience = TimeSpan.FromSeconds(10);

    public static TheoryData<int, Protocol> Cases() => new()
    {
        { 2, Protocol.Http11 },
        { 2, Protocol.Http2 },
        { 1000, Protocol.Http11 },
        { 1000, Protocol.Http2 },
        { LabRecordGenerator.DefaultRecordCount, Protocol.Http11 },
    };

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task StjStream_LastRecordHeldBack_FirstBytesArriveAndTheDocumentCompletesOnceReleased(int count, Protocol protocol)
    {
        var gate = Guid.NewGuid().ToString("N");
        using var firstBytes = new CancellationTokenSource(s_firstBytesPatience);
        using var request = server.Request(HttpMethod.Get, protocol, $"/lab/json/stj-stream?records={count}&gate={gate}");

        using var response = await server.Client.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, firstBytes.Token);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        await using var body = await response.Content.ReadAsStreamAsync(firstBytes.Token);
        var received = new MemoryStream();
        var buffer = new byte[64 * 1024];
        var read = await body.ReadAsync(buffer, firstBytes.Token);

        // Bytes before the last record exists: the opening bracket and at least the first record's start.
        Assert.True(read > 1, $"read {read} bytes");
        Assert.Equal((byte)'[', buffer[0]);
        received.Write(buffer, 0, read);

        using (var open = server.Request(HttpMethod.Post, protocol, $"/lab/json/gates/{gate}"))
        using (var opened = await server.Client.SendAsync(open))
        {
            Assert.Equal(HttpStatusCode.NoContent, opened.StatusCode);
        }

        await body.CopyToAsync(received);
        await JsonDocuments.AssertIsDocumentAsync(received.ToArray(), count);
    }

    [Theory]
    [InlineData("POST", "/lab/json/gates/not%20a%20name")]
    [InlineData("POST", "/lab/json/gates/0123456789012345678901234567890123456789012345678901234567890123456789")]
    [InlineData("GET", "/lab/json/stj-stream?records=2&gate=a.b")]
    public async Task Gate_NameNotAShortToken_Answers400Problem(string method, string pathAndQuery)
    {
        using var request = server.Request(new HttpMethod(method), Protocol.Http11, pathAndQuery);

        using var response = await server.Client.SendAsync(request);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
    }
}
