namespace Freight.Bench.Verdicts;

/// <summary>Two-sided quantiles of Student's t distribution: the factor of a 95 % interval, and of the 99.5 % one adaptive runs decide on.</summary>
internal static class StudentT
{
    /// <summary>t(0.975, ν) for ν = 1 … 30, from the standard tables (e.g. NIST/SEMATECH e-Handbook, 1.3.6.7.2).</summary>
    private static readonly double[] Table975 =
    [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];

    /// <summary>t(0.9975, ν) for ν = 1 … 30, by numerical inversion of t's distribution function (they agree with the tables' 0.0025 column).</summary>
    private static readonly double[] Table9975 =
    [
        127.321, 14.089, 7.453, 5.598, 4.773, 4.317, 4.029, 3.833, 3.690, 3.581,
        3.497, 3.428, 3.372, 3.326, 3.286, 3.252, 3.222, 3.197, 3.174, 3.153,
        3.135, 3.119, 3.104, 3.091, 3.078, 3.067, 3.057, 3.047, 3.038, 3.030,
    ];

    /// <summary>The normal distribution's 97.5 % quantile.</summary>
    private const double Z975 = 1.959963984540054;

    /// <summary>The normal distribution's 99.75 % quantile.</summary>
    private const double Z9975 = 2.807033768343811;

    public static double Quantile975(int degreesOfFreedom) => Quantile(RatioStatistics.Level, degreesOfFreedom);

    /// <summary>The factor of a two-sided interval of <paramref name="level"/> (0.95 or 0.995) with <paramref name="degreesOfFreedom"/>.</summary>
    public static double Quantile(double level, int degreesOfFreedom)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(degreesOfFreedom, 1);
        var (table, z) = level switch
        {
            RatioStatistics.Level => (Table975, Z975),
            RatioStatistics.AddedRunsLevel => (Table9975, Z9975),
            _ => throw new ArgumentOutOfRangeException(nameof(level), level, "Only the 95 % and 99.5 % levels are tabled."),
        };
        if (degreesOfFreedom <= table.Length)
        {
            return table[degreesOfFreedom - 1];
        }

        // Beyond the table, the Cornish–Fisher expansion of t in 1/ν (Abramowitz and Stegun 26.7.5): within 1e-3 from ν = 30 on.
        double v = degreesOfFreedom, z2 = z * z;
        return z
            + (z * (z2 + 1) / (4 * v))
            + (z * ((5 * z2 * z2) + (16 * z2) + 3) / (96 * v * v))
            + (z * ((3 * z2 * z2 * z2) + (19 * z2 * z2) + (17 * z2) - 15) / (384 * v * v * v));
    }
}
