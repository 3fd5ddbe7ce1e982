using System.Globalization;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.Configuration;

namespace Freight.Server.Hosting;

/// <summary>
/// Kestrel's own limits for <c>freight serve</c>, from the <c>Kestrel:Limits</c> section: the request-head timeout, the
/// request line's and the head's sizes, keep-alive, connection counts, the minimum response rate. A default ASP.NET Core
/// app leaves that section unbound (its docs bind it by hand), so a limit set there did nothing. The limits Freight sets
/// from its own options are refused here, naming the option that sets them, rather than silently overridden; so is a
/// key Kestrel has no limit for (a typo would otherwise be ignored).
/// </summary>
internal sealed class KestrelLimitsSection
{
    public const string Path = "Kestrel:Limits";

    private const string MinResponseDataRate = nameof(KestrelServerLimits.MinResponseDataRate);

    /// <summary>Kestrel's limits that Freight's options set, and the option to use instead.</summary>
    private static readonly (string Key, string Option)[] s_setByFreight =
    [
        (nameof(KestrelServerLimits.MaxRequestBodySize), "Freight:MaxRequestBodyBytes (--max-body-bytes)"),
        (nameof(KestrelServerLimits.MinRequestBodyDataRate), "Freight:Files:MinUploadBytesPerSecond"),
        ("Http2:" + nameof(Http2Limits.InitialConnectionWindowSize), "Freight:Http2:InitialConnectionWindowBytes"),
        ("Http2:" + nameof(Http2Limits.InitialStreamWindowSize), "Freight:Http2:InitialStreamWindowBytes"),
        ("Http2:" + nameof(Http2Limits.MaxFrameSize), "Freight:Http2:MaxFrameBytes"),
    ];

    private readonly IConfiguration _bindable;
    private readonly MinDataRate? _minResponseDataRate;
    private readonly bool _setsMinResponseDataRate;

    private KestrelLimitsSection(IConfiguration bindable, MinDataRate? minResponseDataRate, bool setsMinResponseDataRate)
    {
        _bindable = bindable;
        _minResponseDataRate = minResponseDataRate;
        _setsMinResponseDataRate = setsMinResponseDataRate;
    }

    /// <summary>The section, checked: every failure names its key, as the Freight section's do.</summary>
    public static KestrelLimitsSection Read(IConfiguration configuration, out List<string> failures)
    {
        var section = configuration.GetSection(Path);
        failures = [];
        foreach (var (key, option) in s_setByFreight)
        {
            if (section.GetSection(key).Value is not null || section.GetSection(key).GetChildren().Any())
            {
                failures.Add($"{Path}:{key} is set by {option}: set that instead.");
            }
        }

        // Kestrel's MinDataRate has no setters, so the binder cannot fill it: read it here.
        var rate = section.GetSection(MinResponseDataRate);
        var setsRate = rate.GetChildren().Any();
        MinDataRate? minResponseDataRate = null;
        var unconverted = failures.Count;
        SettingShape.Of(typeof(double)).Check(rate.GetSection(nameof(MinDataRate.BytesPerSecond)), failures, NotALimit);
        SettingShape.Of(typeof(TimeSpan)).Check(rate.GetSection(nameof(MinDataRate.GracePeriod)), failures, NotALimit);
        if (setsRate && failures.Count == unconverted)
        {
            try
            {
                var bytesPerSecond = rate.GetValue<double>(nameof(MinDataRate.BytesPerSecond));
                var gracePeriod = rate.GetValue(nameof(MinDataRate.GracePeriod), TimeSpan.FromSeconds(5));
                minResponseDataRate = bytesPerSecond == 0 ? null : new MinDataRate(bytesPerSecond, gracePeriod);
            }
            catch (Exception invalid) when (invalid is InvalidOperationException or ArgumentOutOfRangeException)
            {
                failures.Add(string.Create(CultureInfo.InvariantCulture, $"{Path}:{MinResponseDataRate} is not valid (BytesPerSecond ≥ 0, 0 for none; GracePeriod over 1 s): {Reason(invalid)}"));
            }
        }

        // The rest binds as it stands, minus the rate (read above) and the limits refused above. A key Kestrel has no
        // limit for is refused by name first: the binder's own refusal names the type, not the key.
        var rest = section.AsEnumerable().Where(setting => setting.Value is not null && !IsReadHere(Relative(setting.Key))).ToList();
        var checkedBefore = failures.Count;
        SettingShape.Of(typeof(KestrelServerLimits)).Check(
            new ConfigurationBuilder().AddInMemoryCollection(rest).Build().GetSection(Path),
            failures,
            NotALimit);
        var bindable = new ConfigurationBuilder().AddInMemoryCollection(
            rest.Select(setting => KeyValuePair.Create(Relative(setting.Key), setting.Value))).Build();
        try
        {
            Bind(bindable, new KestrelServerLimits());
        }
        catch (InvalidOperationException unbindable) when (failures.Count == checkedBefore)
        {
            failures.Add($"{Path} is not valid: {Reason(unbindable)}");
        }
        catch (InvalidOperationException)
        {
            // Refused by name above.
        }

        return new KestrelLimitsSection(bindable, minResponseDataRate, setsRate);
    }

    /// <summary>Sets <paramref name="limits"/> from the section; Freight's own options are applied after it.</summary>
    public void ApplyTo(KestrelServerLimits limits)
    {
        Bind(_bindable, limits);
        if (_setsMinResponseDataRate)
        {
            limits.MinResponseDataRate = _minResponseDataRate;
        }
    }

    private static string NotALimit(string key, string? closest) =>
        closest is null ? $"{key} is not a Kestrel limit." : $"{key} is not a Kestrel limit (did you mean {Relative(closest)}?)";

    /// <summary>A key of the section relative to it: <c>KeepAliveTimeout</c> for <c>Kestrel:Limits:KeepAliveTimeout</c>.</summary>
    private static string Relative(string key) => key.Length > Path.Length ? key[(Path.Length + 1)..] : "";

    private static bool IsReadHere(string key) =>
        key.StartsWith(MinResponseDataRate, StringComparison.OrdinalIgnoreCase)
        || s_setByFreight.Any(limit => key.StartsWith(limit.Key, StringComparison.OrdinalIgnoreCase));

    private static void Bind(IConfiguration settings, KestrelServerLimits limits) =>
        settings.Bind(limits, binder => binder.ErrorOnUnknownConfiguration = true);

    private static string Reason(Exception exception) =>
        exception.InnerException is { } inner ? $"{exception.Message} {inner.Message}" : exception.Message;
}
