using Freight.Bench.Scenarios;

namespace Freight.Bench.Reports;

/// <summary>Issue 6's goals for the files API, from one run, at the largest payload.</summary>
public static class FilesRatios
{
    public static IEnumerable<RatioResult> Compute(IReadOnlyList<ScenarioResult> results, long size)
    {
        ArgumentNullException.ThrowIfNull(results);
        double? Rate(string id) => results.FirstOrDefault(r => r.Scenario == id && r.Verified
            && Convert.ToInt64(r.Parameters["payloadBytes"], System.Globalization.CultureInfo.InvariantCulture) == size)?.BytesPerSecond?.Median;

        var label = SizeText.Format(size);
        yield return new RatioResult($"files/get / nginx-get, {label}", FilesSuite.Get, FilesSuite.NginxGet, Rate(FilesSuite.Get) / Rate(FilesSuite.NginxGet), Goal: 0.85);
        yield return new RatioResult($"files/put / nginx-put, {label}", FilesSuite.Put, FilesSuite.NginxPut, Rate(FilesSuite.Put) / Rate(FilesSuite.NginxPut), Goal: 1.0);
        yield return new RatioResult($"files/get / download/freight, {label}", FilesSuite.Get, FilesSuite.LabDownload, Rate(FilesSuite.Get) / Rate(FilesSuite.LabDownload), Goal: 0.9);
        yield return new RatioResult($"files/put / upload/freight →file, {label}", FilesSuite.Put, FilesSuite.LabUpload, Rate(FilesSuite.Put) / Rate(FilesSuite.LabUpload), Goal: 0.9);
    }
}
