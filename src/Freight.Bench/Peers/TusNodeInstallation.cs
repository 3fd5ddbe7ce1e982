namespace Freight.Bench.Peers;

/// <summary>
/// What running the tus peer needs, found on this machine by <see cref="TusNode.LocateAsync"/>: Node (its
/// path and version) and the peer's package directory (<c>peers/tus-node</c>: package.json, the committed
/// package-lock.json and server.mjs).
/// </summary>
public sealed record TusNodeInstallation(string NodePath, Version NodeVersion, string PackageDirectory)
{
    public string ScriptPath => Path.Combine(PackageDirectory, "server.mjs");

    public string LockFilePath => Path.Combine(PackageDirectory, "package-lock.json");

    /// <summary>npm's record of what it installed into node_modules, written by every install.</summary>
    public string InstalledLockFilePath => Path.Combine(PackageDirectory, "node_modules", ".package-lock.json");
}
