using Freight.Bench.Results;
using Freight.Lab.Payload;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;

namespace Freight.Bench.Tests.Load.Command;

/// <summary>
/// A body over the server's limit: Kestrel (its default MaxRequestBodySize, 30,000,000 bytes) answers 413 while the
/// body is still being sent, then closes. <c>freight load</c> reads that answer, as curl does, and counts it as the
/// status it is, over either client: HttpClient (<c>--size</c>) and the raw HTTP/1.1 one (<c>--file</c>).
/// </summary>
public sealed class LoadBodyLimitTests
{
    // Over Kestrel's default limit by a third: the server refuses it long before it has all gone.
    private const long OverTheLimit = 40L << 20;

    [Theory]
    [InlineData("--size")]
    [InlineData("--file")]
    public async Task Put_BodyOverKestrelsLimit_CountedAs413WithAHintAtTheLimit(string body)
    {
        var app = LoopbackApp.Create();
        app.MapPut("/upload", async (HttpContext context) =>
        {
            await context.Request.Body.CopyToAsync(Stream.Null);
            context.Response.StatusCode = StatusCodes.Status201Created;
        });
        await app.StartAsync();
        var file = Path.Combine(Path.GetTempPath(), $"freight-load-{Guid.NewGuid():N}.bin");
        try
        {
            string source = OverTheLimit.ToString(System.Globalization.CultureInfo.InvariantCulture);
            if (body == "--file")
            {
                await File.WriteAllBytesAsync(file, DeterministicPayload.Create((int)OverTheLimit));
                source = file;
            }

            var run = await LoadCli.RunAsync(new Uri(LoopbackApp.AddressOf(app), "/upload").ToString(), "-X", "PUT", body, source,
                "-c", "1", "-n", "3", "--expect-status", "201", "--no-progress");

            var said = "status 413, expected 201 (over a request body limit? Kestrel's MaxRequestBodySize is 30,000,000 bytes by default)";
            Assert.Equal(1, run.Exit);
            Assert.Equal(new Dictionary<string, long> { ["status"] = 3 }, run.Row.Failures);
            Assert.Equal(3, run.Row.StatusCodes!["413"]);
            // Refused before its body had gone: none of the 40 MiB bodies counts as moved (it read 14 GiB/s).
            Assert.Equal(0, run.Row.BytesPerSecond!.Median);
            Assert.Equal(new FailureReason("unexpected_status", said), run.Row.FirstFailure);
            Assert.Contains($"failures   status 3 — first: {said}\n", run.Stdout, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(file);
            await app.StopAsync();
            await app.DisposeAsync();
        }
    }
}
