namespace Freight.Bench.Peers;

/// <summary>
/// What running the tus peer needs, found on this machine by <see cref="TusNode.LocateAsync"/>: Node (its
/// path and version) and the peer's package directory (<c>peers/tus-node</c>: package.json, the committed
/// package-lock.json and server.mjs).
/// </summary>
public sealed record TusNodeInstallation(string NodePath, Version NodeVersion, string PackageDirectory)
{
    public string ScriptPath => Path.Combine(PackageDirectory, "server.mjs");
}
