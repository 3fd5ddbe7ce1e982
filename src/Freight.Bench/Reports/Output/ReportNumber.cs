using System.Globalization;

namespace Freight.Bench.Reports.Output;

/// <summary>How the report writes numbers: for people in tables and charts, in full for CSV and data attributes. Invariant culture.</summary>
public static class ReportNumber
{
    /// <summary>
    /// Thousands separators and about three significant digits, as <c>freight compare</c> shows them:
    /// 101,902 · 42.5 · 2.38 · 0.573 · 0.000573; a whole number without decimals (30, not 30.0: counts, published figures).
    /// </summary>
    public static string Format(double value, bool integer = false)
    {
        var magnitude = Math.Abs(value);
        if (integer || magnitude >= 100 || value == Math.Round(value))
        {
            return value.ToString("N0", CultureInfo.InvariantCulture);
        }

        if (magnitude >= 1)
        {
            return value.ToString(magnitude >= 10 ? "N1" : "N2", CultureInfo.InvariantCulture);
        }

        // Below 1: three significant digits, however many zeros lead (CPU seconds per response are ~1e-5).
        var decimals = Math.Min(9, 2 - (int)Math.Floor(Math.Log10(magnitude)));
        return value.ToString("N" + decimals.ToString(CultureInfo.InvariantCulture), CultureInfo.InvariantCulture);
    }

    /// <summary>Machine-readable: no separators, up to nine decimals (CSV cells, data-* attributes).</summary>
    public static string Raw(double value) => value.ToString("0.#########", CultureInfo.InvariantCulture);
}
