namespace Freight.Server.Tests.Hosting;

/// <summary>
/// A test that runs <c>freight serve</c> without a capability root has (through <see cref="Setpriv"/>), to meet what an
/// unprivileged server meets: skipped, saying why, where that cannot be done (not Linux, not root, no setpriv).
/// </summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class CapabilityDropFactAttribute : FactAttribute
{
    /// <summary>util-linux's setpriv, which drops capabilities from the bounding set of what it runs.</summary>
    public const string Setpriv = "/usr/bin/setpriv";

    public CapabilityDropFactAttribute()
    {
        if (!OperatingSystem.IsLinux() || !Environment.IsPrivilegedProcess || !File.Exists(Setpriv))
        {
            Skip = $"drops a capability with {Setpriv}: Linux, root and util-linux's setpriv only (CI runs the tests as root)";
        }
    }
}
