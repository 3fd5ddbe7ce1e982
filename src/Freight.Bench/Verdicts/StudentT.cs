namespace Freight.Bench.Verdicts;

/// <summary>The 97.5 % quantile of Student's t distribution, the factor of a two-sided 95 % interval.</summary>
internal static class StudentT
{
    /// <summary>t(0.975, ν) for ν = 1 … 30, from the standard tables (e.g. NIST/SEMATECH e-Handbook, 1.3.6.7.2).</summary>
    private static readonly double[] Table =
    [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];

    /// <summary>The normal distribution's 97.5 % quantile.</summary>
    private const double Z = 1.959963984540054;

    public static double Quantile975(int degreesOfFreedom)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(degreesOfFreedom, 1);
        if (degreesOfFreedom <= Table.Length)
        {
            return Table[degreesOfFreedom - 1];
        }

        // Beyond the table, the Cornish–Fisher expansion of t in 1/ν (Abramowitz and Stegun 26.7.5): within 1e-4 from ν = 30 on.
        double v = degreesOfFreedom, z2 = Z * Z;
        return Z
            + (Z * (z2 + 1) / (4 * v))
            + (Z * ((5 * z2 * z2) + (16 * z2) + 3) / (96 * v * v))
            + (Z * ((3 * z2 * z2 * z2) + (19 * z2 * z2) + (17 * z2) - 15) / (384 * v * v * v));
    }
}
