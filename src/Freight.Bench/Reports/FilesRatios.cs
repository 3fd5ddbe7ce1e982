using Freight.Bench.Scenarios;

namespace Freight.Bench.Reports;

/// <summary>The files suite's goals, from one run, at the largest payload.</summary>
public static class FilesRatios
{
    /// <summary>Issue 6's goals for the files API on the file system store.</summary>
    public static IEnumerable<RatioResult> Compute(IReadOnlyList<ScenarioResult> results, long size)
    {
        ArgumentNullException.ThrowIfNull(results);
        double? Rate(string id) => MedianRate(results, id, size);

        var label = SizeText.Format(size);
        yield return new RatioResult($"files/get / nginx-get, {label}", FilesSuite.Get, FilesSuite.NginxGet, Rate(FilesSuite.Get) / Rate(FilesSuite.NginxGet), Goal: 0.85);
        yield return new RatioResult($"files/put / nginx-put, {label}", FilesSuite.Put, FilesSuite.NginxPut, Rate(FilesSuite.Put) / Rate(FilesSuite.NginxPut), Goal: 1.0);
        yield return new RatioResult($"files/get / download/freight, {label}", FilesSuite.Get, FilesSuite.LabDownload, Rate(FilesSuite.Get) / Rate(FilesSuite.LabDownload), Goal: 0.9);
        yield return new RatioResult($"files/put / upload/freight →file, {label}", FilesSuite.Put, FilesSuite.LabUpload, Rate(FilesSuite.Put) / Rate(FilesSuite.LabUpload), Goal: 0.9);
    }

    /// <summary>
    /// Issue 9's goals for the files API on the S3 store: each direction through Freight at least 0.9 of the
    /// same client talking to the S3 server directly.
    /// </summary>
    public static IEnumerable<RatioResult> ComputeS3(IReadOnlyList<ScenarioResult> results, long size)
    {
        ArgumentNullException.ThrowIfNull(results);
        double? Rate(string id) => MedianRate(results, id, size);

        var label = SizeText.Format(size);
        yield return new RatioResult($"files/put / s3-direct-put, S3 store, {label}", FilesSuite.Put, FilesSuite.S3DirectPut, Rate(FilesSuite.Put) / Rate(FilesSuite.S3DirectPut), Goal: 0.9);
        yield return new RatioResult($"files/get / s3-direct-get, S3 store, {label}", FilesSuite.Get, FilesSuite.S3DirectGet, Rate(FilesSuite.Get) / Rate(FilesSuite.S3DirectGet), Goal: 0.9);
    }

    /// <summary>The median rate of a verified row of <paramref name="size"/>, or null when there is none.</summary>
    private static double? MedianRate(IReadOnlyList<ScenarioResult> results, string id, long size) =>
        results.FirstOrDefault(r => r.Scenario == id && r.Verified
            && Convert.ToInt64(r.Parameters["payloadBytes"], System.Globalization.CultureInfo.InvariantCulture) == size)?.BytesPerSecond?.Median;
}
