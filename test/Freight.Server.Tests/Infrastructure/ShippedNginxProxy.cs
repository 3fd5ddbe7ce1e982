using Freight.Bench.Peers;

namespace Freight.Server.Tests.Infrastructure;

/// <summary>
/// nginx in front of a server as the repository ships it for deployments, deploy/nginx/freight.conf, changed only in
/// its two addresses: the tests of serve behind a reverse proxy run the very file the docs tell operators to use.
/// </summary>
internal static class ShippedNginxProxy
{
    /// <summary>nginx missing fails the test, as the bench's peer tests do: ./test.sh installs it.</summary>
    public const string Missing = "nginx is not installed: run scripts/install-peers.sh as root (./test.sh does).";

    /// <summary>Starts nginx on a free loopback port in front of <paramref name="upstream"/>; null when nginx is not installed.</summary>
    public static async Task<NginxServer?> StartAsync(string workDirectory, Uri upstream)
    {
        var root = NodePackages.FindRepositoryRoot() ?? throw new InvalidOperationException($"No Freight.slnx above {AppContext.BaseDirectory}: these tests read deploy/nginx/freight.conf from the clone.");
        var shipped = await File.ReadAllTextAsync(Path.Combine(root, "deploy", "nginx", "freight.conf"));
        return await Nginx.StartProxyAsync(workDirectory, port => Addressed(shipped, upstream, port), CancellationToken.None);
    }

    /// <summary>The shipped file with the server's address for the upstream's and nginx's own port for <c>listen 80</c>; nothing else changes.</summary>
    private static string Addressed(string shipped, Uri upstream, int port) =>
        ReplaceOnce(ReplaceOnce(shipped, "server 127.0.0.1:5080;", $"server {upstream.Authority};"), "listen 80;", $"listen 127.0.0.1:{port};");

    private static string ReplaceOnce(string text, string old, string replacement)
    {
        var at = text.IndexOf(old, StringComparison.Ordinal);
        Assert.True(at >= 0 && text.IndexOf(old, at + 1, StringComparison.Ordinal) < 0, $"deploy/nginx/freight.conf should hold '{old}' once: the test puts its own address there.");
        return string.Concat(text.AsSpan(0, at), replacement, text.AsSpan(at + old.Length));
    }
}
