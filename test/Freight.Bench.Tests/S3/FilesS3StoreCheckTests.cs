using Freight.Bench.Load;
using Freight.Bench.Measure;
using Freight.Bench.Progress;
using Freight.Bench.Suites.Files;

namespace Freight.Bench.Tests.S3;

/// <summary>
/// The files suite on S3 proves the files API's bytes are in the store's bucket before it measures them: a server
/// that answers the PUT but keeps the file elsewhere (here: its file-system store) gets its rows failed with why,
/// while peer/s3-direct is still measured.
/// </summary>
public sealed class FilesS3StoreCheckTests(RgwPeer rgw) : IClassFixture<RgwPeer>
{
    [Fact]
    public async Task RunAsync_ServerNotOnS3_ApiRowsFailWithWhyDirectRowsVerified()
    {
        var options = BenchCommand.Parse(["--suite", "files", "--store", "s3", "--quick", "--runs", "1", "--run-seconds", "0.1", "--warmup-seconds", "0"], out var error)!;
        Assert.Null(error);
        var work = Directory.CreateTempSubdirectory("freight-files-s3-check-");
        try
        {
            await rgw.Server.CreateBucketAsync(FilesSuiteRunner.StoreBucket, CancellationToken.None);
            await using var server = await FreightProcess.StartServerAsync(Path.Combine(work.FullName, "data"), [], null, CancellationToken.None);
            var target = new BenchTarget(server.Http, null, null);
            using var clients = new HttpClients([]);
            using var payload = ClientPayload.Create(0, work.FullName);
            var underTest = new ServerUnderTest("freight", target, new ServerMetrics(clients.Client, target.Http!), new TransferClient(clients, target, payload));
            var runner = new FilesSuiteRunner(options, new PlainProgress(new StringWriter()), underTest, clients.Client, work.FullName, rgw: rgw.Server);

            var (results, ratios, verified, _) = await runner.RunAsync(CancellationToken.None);

            Assert.False(verified);
            var rows = results.ToDictionary(r => r.Scenario);
            foreach (var id in new[] { FilesSuite.Put, FilesSuite.Get })
            {
                Assert.False(rows[id].Verified, id);
                Assert.Null(rows[id].BytesPerSecond);
                Assert.Contains("did not store it in S3", rows[id].Error, StringComparison.Ordinal);
            }

            foreach (var id in new[] { FilesSuite.S3DirectPut, FilesSuite.S3DirectGet })
            {
                Assert.True(rows[id].Verified, rows[id].Error);
                Assert.True(rows[id].BytesPerSecond!.Median > 0, id);
                Assert.Equal("rgw", rows[id].Parameters.Server);
                Assert.Equal(rgw.Server.Version, rows[id].Parameters.RgwVersion);
            }

            Assert.All(ratios, r => Assert.Null(r.Value));

            // What the suite stored directly is gone once it is done.
            Assert.Empty(await rgw.Server.ListObjectsAsync(FilesSuiteRunner.DirectBucket, CancellationToken.None));
        }
        finally
        {
            work.Delete(recursive: true);
        }
    }
}
