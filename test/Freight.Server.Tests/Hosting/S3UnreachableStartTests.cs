using Freight.Server.Hosting;
using Freight.Server.Tests.Infrastructure;
using Microsoft.Extensions.Logging;

namespace Freight.Server.Tests.Hosting;

/// <summary>serve on the S3 store whose server does not answer at start: it starts, and says so in one Warning line with the reason and no stack.</summary>
public sealed class S3UnreachableStartTests
{
    [Fact]
    public async Task Serve_S3ServerRefusesConnections_OneWarningLineWithTheReasonAndNoStack()
    {
        var directory = Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N"));
        var logs = new CapturedLogs();
        try
        {
            await using (var server = FreightServer.Create(
            [
                "--urls", "http://127.0.0.1:0", "--data-dir", directory, "--Freight:Lab", "false",
                "--Freight:Files:Store", "S3", "--Freight:S3:Endpoint", "http://127.0.0.1:1", "--Freight:S3:Bucket", "bkt",
                "--Freight:S3:AccessKey", "x", "--Freight:S3:SecretKey", "y",
            ], builder => builder.Logging.AddProvider(logs)))
            {
                await server.StartAsync();
            }

            var line = Assert.Single(logs.Since(0, LogLevel.Warning), log => log.Message.Contains("did not answer at start", StringComparison.Ordinal));
            Assert.Equal(LogLevel.Warning, line.Level);
            Assert.Contains("(http://127.0.0.1:1): ", line.Message, StringComparison.Ordinal);
            Assert.Contains("Connection refused", line.Message, StringComparison.Ordinal);
            // CapturedLogs appends an attached exception's type and message: none, so no stack in any provider either.
            Assert.DoesNotContain("Exception:", line.Message, StringComparison.Ordinal);
        }
        finally
        {
            if (Directory.Exists(directory))
            {
                Directory.Delete(directory, recursive: true);
            }
        }
    }
}
