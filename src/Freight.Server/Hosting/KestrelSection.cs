using Microsoft.Extensions.Configuration;

namespace Freight.Server.Hosting;

/// <summary>
/// The <c>Kestrel</c> section's keys serve does not read, refused by name. Serve reads <c>Kestrel:Limits</c>
/// (<see cref="KestrelLimitsSection"/>) and <c>Kestrel:Certificates:Default</c> (<see cref="ServerCertificate"/>). Kestrel's
/// own loader still binds <c>Kestrel:Endpoints</c>, which added a listener beside serve's addresses without Freight's
/// TLS set-up and request checks; any other key did nothing. Either way the operator meant something that would not happen.
/// </summary>
internal static class KestrelSection
{
    public static IEnumerable<string> NotRead(IConfiguration configuration)
    {
        foreach (var child in configuration.GetSection("Kestrel").GetChildren())
        {
            var key = $"Kestrel:{child.Key}";
            if (child.Key.Equals("Limits", StringComparison.OrdinalIgnoreCase))
            {
                continue;
            }

            if (child.Key.Equals("Certificates", StringComparison.OrdinalIgnoreCase))
            {
                foreach (var named in child.GetChildren().Where(named => !named.Key.Equals("Default", StringComparison.OrdinalIgnoreCase)))
                {
                    yield return $"{key}:{named.Key} is not read by freight serve: its https:// addresses present one certificate, {ServerCertificate.Section}.";
                }

                continue;
            }

            yield return child.Key.Equals("Endpoints", StringComparison.OrdinalIgnoreCase) || child.Key.Equals("EndpointDefaults", StringComparison.OrdinalIgnoreCase)
                ? $"{key} is not read by freight serve: it listens on Freight:Urls (--urls), where each address gets Freight's TLS set-up and request checks."
                : $"{key} is not read by freight serve: it reads Kestrel:Limits and {ServerCertificate.Section}.";
        }
    }
}
