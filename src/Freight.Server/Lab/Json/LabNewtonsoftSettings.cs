using Newtonsoft.Json;
using Newtonsoft.Json.Converters;
using Newtonsoft.Json.Serialization;

namespace Freight.Server.Lab.Json;

/// <summary>Study 2's Newtonsoft.Json settings, equal in output to <see cref="Freight.Lab.Json.LabJsonContext"/>.</summary>
public static class LabNewtonsoftSettings
{
    /// <summary>Applies the settings to <paramref name="settings"/> (e.g. MVC's SerializerSettings).</summary>
    public static JsonSerializerSettings Apply(JsonSerializerSettings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        settings.ContractResolver = new CamelCasePropertyNamesContractResolver();
        settings.NullValueHandling = NullValueHandling.Ignore;
        settings.DefaultValueHandling = DefaultValueHandling.Ignore;
        settings.DateParseHandling = DateParseHandling.DateTimeOffset;
        settings.Converters.Add(new StringEnumConverter());
        return settings;
    }
}
