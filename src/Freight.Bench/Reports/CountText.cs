using System.Globalization;

namespace Freight.Bench.Reports;

/// <summary>Counts in the bench's output with their noun agreeing: "1 connection", "200 connections".</summary>
public static class CountText
{
    /// <param name="noun">The singular; the plural adds an "s".</param>
    public static string Format(long count, string noun) =>
        string.Create(CultureInfo.InvariantCulture, $"{count} {noun}{(count == 1 ? "" : "s")}");
}
