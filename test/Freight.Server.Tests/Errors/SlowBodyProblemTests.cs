using System.Net;
using System.Text.Json;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Errors;

/// <summary>
/// An upload cut for arriving under the minimum rate is a 408 whose title says so and whose detail names Freight's
/// option and its value: Kestrel's message named its own key (MinRequestBodyDataRate), which serve refuses.
/// </summary>
public sealed class SlowBodyProblemTests(FileSystemFilesServer server) : IClassFixture<FileSystemFilesServer>
{
    [Fact]
    public async Task Put_BodyStallsUnderTheMinimumRate_RequestTimeoutNamingFreightsOption()
    {
        var key = FilesApi.NewRoot() + "/stalled.bin";
        await using var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);
        await connection.SendAsync(RawHttpConnection.Head("PUT", server.HttpAddress, "/files/" + key, "Content-Length: 1048576"));
        await connection.SendAsync(new byte[1000]);

        // Nothing more is sent: past the 5 s grace the body is far under 64 KiB/s.
        var response = await connection.ReadResponseAsync();

        ProblemAssert.IsProblem(response, HttpStatusCode.RequestTimeout);
        using var problem = JsonDocument.Parse(response.BodyText);
        Assert.Equal("Request timeout", problem.RootElement.GetProperty("title").GetString());
        var detail = problem.RootElement.GetProperty("detail").GetString();
        Assert.StartsWith("The body arrived slower than 65536 bytes/s (Freight:Files:MinUploadBytesPerSecond)", detail, StringComparison.Ordinal);
        Assert.DoesNotContain("MinRequestBodyDataRate", detail, StringComparison.Ordinal);
        Assert.False(File.Exists(server.DiskPath(key)));
    }
}
