using System.Globalization;

namespace Freight.Bench.Reports;

/// <summary>Sizes in the bench's labels: whole KiB, MiB or GiB (the suites' sizes are all powers of two).</summary>
public static class SizeText
{
    public static string Format(long bytes) => bytes switch
    {
        >= 1L << 30 => (bytes >> 30).ToString(CultureInfo.InvariantCulture) + " GiB",
        >= 1L << 20 => (bytes >> 20).ToString(CultureInfo.InvariantCulture) + " MiB",
        _ => (bytes >> 10).ToString(CultureInfo.InvariantCulture) + " KiB",
    };
}
