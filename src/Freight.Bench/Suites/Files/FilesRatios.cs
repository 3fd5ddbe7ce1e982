using Freight.Bench.Reports;
using Freight.Bench.Results;
using Freight.Bench.Verdicts;

namespace Freight.Bench.Suites.Files;

/// <summary>The files suite's goals, from one run, at the largest payload.</summary>
public static class FilesRatios
{
    /// <summary>The goals for the files API on the file system store: issue 6's, raised by issue 20.</summary>
    public static IEnumerable<RatioResult> Compute(IReadOnlyList<ScenarioResult> results, long size)
    {
        ArgumentNullException.ThrowIfNull(results);
        RatioResult Ratio(string name, string numerator, string denominator, double goal) => RatioOf(results, name, numerator, denominator, size, goal);

        var label = SizeText.Format(size);
        // Issue 20 raised issue 6's goals (0.85× and 1.0×): nginx is what a user would pick instead.
        yield return Ratio($"files/get / nginx-get, {label}", FilesSuite.Get, FilesSuite.NginxGet, 1.0);
        yield return Ratio($"files/put / nginx-put, {label}", FilesSuite.Put, FilesSuite.NginxPut, 1.1);
        yield return Ratio($"files/get / download/freight, {label}", FilesSuite.Get, FilesSuite.LabDownload, 0.9);
        yield return Ratio($"files/put / upload/freight →file, {label}", FilesSuite.Put, FilesSuite.LabUpload, 0.9);
        if (AaControl.Ratio(results, r => r.BytesPerSecond) is { } control)
        {
            yield return control;
        }

        // Issue 20's cost goals: Freight's server spends no more CPU per GiB than nginx's on the same transfer.
        yield return ServerCpu($"server CPU s/GiB: files/get / nginx-get, {label}", FilesSuite.Get, FilesSuite.NginxGet);
        yield return ServerCpu($"server CPU s/GiB: files/put / nginx-put, {label}", FilesSuite.Put, FilesSuite.NginxPut);

        // The same goal under a client that sends the body by sendfile and copies nothing: its bytes are always
        // waiting, and the server's receives decide what a PUT costs (SendFilePut). Only where the rows were run.
        if (results.Any(r => r.Scenario is FilesSuite.PutSendFile or FilesSuite.NginxPutSendFile))
        {
            yield return ServerCpu($"server CPU s/GiB: files/put-sendfile / nginx-put-sendfile, {label}", FilesSuite.PutSendFile, FilesSuite.NginxPutSendFile);
        }

        RatioResult ServerCpu(string name, string numerator, string denominator) =>
            CostRatio.ServerCpu(name, numerator, denominator, Row(results, numerator, size), Row(results, denominator, size), 1.0);
    }

    /// <summary>
    /// Issue 9's goals for the files API on the S3 store: each direction through Freight at least 0.9 of the
    /// same client talking to the S3 server directly.
    /// </summary>
    public static IEnumerable<RatioResult> ComputeS3(IReadOnlyList<ScenarioResult> results, long size)
    {
        ArgumentNullException.ThrowIfNull(results);
        RatioResult Ratio(string name, string numerator, string denominator, double goal) => RatioOf(results, name, numerator, denominator, size, goal);

        var label = SizeText.Format(size);
        yield return Ratio($"files/put / s3-direct-put, S3 store, {label}", FilesSuite.Put, FilesSuite.S3DirectPut, 0.9);
        yield return Ratio($"files/get / s3-direct-get, S3 store, {label}", FilesSuite.Get, FilesSuite.S3DirectGet, 0.9);
        if (AaControl.Ratio(results, r => r.BytesPerSecond) is { } control)
        {
            yield return control;
        }
    }

    /// <summary>The ratio of two verified rows' rates at <paramref name="size"/>: their medians, and the interval from their runs.</summary>
    private static RatioResult RatioOf(IReadOnlyList<ScenarioResult> results, string name, string numerator, string denominator, long size, double goal)
    {
        var top = Row(results, numerator, size);
        var bottom = Row(results, denominator, size);
        return new RatioResult(name, numerator, denominator, top?.BytesPerSecond?.Median / bottom?.BytesPerSecond?.Median, Goal: goal)
            .WithRuns(top, bottom, r => r.BytesPerSecond);
    }

    /// <summary>The verified row of <paramref name="size"/>, or null when there is none.</summary>
    private static ScenarioResult? Row(IReadOnlyList<ScenarioResult> results, string id, long size) =>
        results.FirstOrDefault(r => r.Scenario == id && r.Verified && r.Parameters.PayloadBytes == size);
}
