using System.Globalization;

namespace Freight.Bench.Reports.Output;

/// <summary>A value axis from 0 to a round maximum in round steps (1, 2, 2.5 or 5 × 10ⁿ), about five ticks.</summary>
internal sealed record AxisScale(double Max, double Step)
{
    public static AxisScale For(double max)
    {
        if (!(max > 0) || !double.IsFinite(max))
        {
            return new AxisScale(1, 0.2);
        }

        var rough = max / 5;
        var power = Math.Pow(10, Math.Floor(Math.Log10(rough)));
        var fraction = rough / power;
        var step = (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 2.5 ? 2.5 : fraction <= 5 ? 5 : 10) * power;
        return new AxisScale(Math.Ceiling((max / step) - 1e-9) * step, step);
    }

    /// <summary>0, Step, 2 × Step, … Max.</summary>
    public IEnumerable<double> Ticks()
    {
        var count = (int)Math.Round(Max / Step);
        for (var i = 0; i <= count; i++)
        {
            yield return i * Step;
        }
    }

    /// <summary>A tick's figure with as many decimals as the step needs, the same on every tick (0, 2.5, 5.0 …).</summary>
    public string Format(double tick)
    {
        var decimals = 0;
        while (decimals < 9 && Math.Abs((Step * Math.Pow(10, decimals)) - Math.Round(Step * Math.Pow(10, decimals))) > 1e-9 * Math.Pow(10, decimals))
        {
            decimals++;
        }

        return tick.ToString("N" + decimals.ToString(CultureInfo.InvariantCulture), CultureInfo.InvariantCulture);
    }
}
