using System.Globalization;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using Microsoft.Extensions.Logging;

namespace Freight.Server.Tests.Errors;

/// <summary>
/// A files-API PUT whose client closes mid-body is the client's doing: logged once at Information ("the client went
/// away"), nothing above it. Kestrel used to log a warning with a stack trace for most such cuts ("Connection processing
/// ended abnormally … Reading is already in progress"): the problem middleware answered the cut itself, and Kestrel
/// went on to read a next request from an input its body reader had left mid-read.
/// </summary>
public sealed class CutUploadLogTests(FileSystemFilesServer server) : IClassFixture<FileSystemFilesServer>
{
    private const int Cuts = 5;

    // Bounded waits for the server to log, not timing assertions.
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(10);
    private static readonly TimeSpan s_settle = TimeSpan.FromSeconds(2);

    [Fact]
    public async Task Put_ClientClosesMidBody_LoggedOnceAtInformationAndNothingAbove()
    {
        var root = FilesApi.NewRoot();
        var mark = server.Logs.Count;
        for (var i = 0; i < Cuts; i++)
        {
            await using var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);
            await connection.SendAsync(RawHttpConnection.Head("PUT", server.HttpAddress, $"/files/{root}/cut{i}.bin", "Content-Length: " + (40_000).ToString(CultureInfo.InvariantCulture)));
            await connection.SendAsync(new byte[1000]);
            await Task.Delay(100); // the body has begun to arrive before the client goes
            connection.Close();
        }

        var deadline = DateTime.UtcNow + s_patience;
        while (WentAway(server.Logs.Since(mark, LogLevel.Information)) < Cuts && DateTime.UtcNow < deadline)
        {
            await Task.Delay(50);
        }

        Assert.Equal(Cuts, WentAway(server.Logs.Since(mark, LogLevel.Information)));

        // Kestrel's warning came as its connection ended, just after the request's own log line: give it that time.
        await Task.Delay(s_settle);
        Assert.Empty(server.Logs.Since(mark, LogLevel.Warning));
        await server.AssertServingAsync();
    }

    private static int WentAway(IReadOnlyList<CapturedLog> logs) =>
        logs.Count(log => log.Level == LogLevel.Information && log.Message.Contains("the client went away", StringComparison.Ordinal));
}
