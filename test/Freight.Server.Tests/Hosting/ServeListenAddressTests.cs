using System.Globalization;
using System.Net;
using System.Net.Sockets;
using Freight.Server.Hosting;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Hosting;

/// <summary>
/// <c>freight serve</c> given an address the machine will not listen on: a port another process holds, a privileged
/// port without the privilege, an IP that is none of the machine's. Like an invalid option it is one <c>error:
/// Freight:Urls: …</c> line naming the address and what to do, exit 2, with no stack trace and no log of it on stdout;
/// and what it bound before the refused address is closed again.
/// </summary>
public sealed class ServeListenAddressTests : IDisposable
{
    private readonly string _directory = Directory.CreateDirectory(Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N"))).FullName;

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    [Fact]
    public async Task Serve_PortInUseByAnotherProcess_Exits2NamingTheAddressAndPortZero()
    {
        using var holder = new TcpListener(IPAddress.Loopback, 0);
        holder.Start();
        var url = $"http://127.0.0.1:{Port(holder)}";

        var (exitCode, stdout, stderr) = await ServeAsync(url);

        Assert.Equal(2, exitCode);
        var error = AssertOneErrorLine(stdout, stderr);
        Assert.StartsWith($"error: Freight:Urls: {url} is in use by another process", error, StringComparison.Ordinal);
        Assert.Contains("port 0 picks a free one", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Serve_AddressNotOfThisMachine_Exits2SayingSo()
    {
        // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): documentation only, never an interface's address.
        var (exitCode, stdout, stderr) = await ServeAsync("http://192.0.2.1:0");

        Assert.Equal(2, exitCode);
        var error = AssertOneErrorLine(stdout, stderr);
        Assert.StartsWith("error: Freight:Urls: http://192.0.2.1:0: 192.0.2.1 is not an address of this machine", error, StringComparison.Ordinal);
    }

    [CapabilityDropFact]
    public async Task Serve_PrivilegedPortWithoutThePrivilege_Exits2SayingItNeedsPrivileges()
    {
        // EACCES comes before any look at who holds the port: it does not matter whether something listens on 81.
        var (exitCode, stdout, stderr) = await ServeAsync(
            "http://127.0.0.1:81",
            launcher: [CapabilityDropFactAttribute.Setpriv, "--bounding-set=-net_bind_service", "--inh-caps=-net_bind_service"]);

        Assert.Equal(2, exitCode);
        var error = AssertOneErrorLine(stdout, stderr);
        Assert.StartsWith("error: Freight:Urls: http://127.0.0.1:81 needs privileges", error, StringComparison.Ordinal);
    }

    /// <summary>Kestrel binds in order: the first address was listening when the second was refused, and is closed again.</summary>
    [Fact]
    public async Task RunAsync_SecondAddressInUse_Returns2AndReleasesTheFirst()
    {
        var free = FreePort();
        using var holder = new TcpListener(IPAddress.Loopback, 0);
        holder.Start();
        using var output = new StringWriter();
        using var error = new StringWriter();

        var exitCode = await FreightServer.RunAsync(["--urls", $"http://127.0.0.1:{free};http://127.0.0.1:{Port(holder)}", "--data-dir", Path.Combine(_directory, "data")], output, error);

        Assert.Equal(2, exitCode);
        Assert.Equal("", output.ToString());
        Assert.StartsWith($"error: Freight:Urls: http://127.0.0.1:{Port(holder)} is in use by another process", error.ToString(), StringComparison.Ordinal);
        using var again = new TcpListener(IPAddress.Loopback, free);
        again.Start();
    }

    [Fact]
    public async Task RunAsync_SamePortTwice_Returns2SayingToGiveEachPortOnce()
    {
        var port = FreePort();
        using var output = new StringWriter();
        using var error = new StringWriter();

        var exitCode = await FreightServer.RunAsync(["--urls", $"http://0.0.0.0:{port};h2c://127.0.0.1:{port}", "--data-dir", Path.Combine(_directory, "data")], output, error);

        Assert.Equal(2, exitCode);
        Assert.StartsWith($"error: Freight:Urls: h2c://127.0.0.1:{port} takes a port another address of --urls takes too", error.ToString(), StringComparison.Ordinal);
    }

    private async Task<(int ExitCode, string Stdout, string Stderr)> ServeAsync(string url, IReadOnlyList<string>? launcher = null)
    {
        await using var freight = FreightProcess.StartServe(_directory, ["--urls", url, "--data-dir", "data"], launcher: launcher);
        var stdout = await freight.ReadRestOfOutputAsync();
        var (exitCode, stderr) = await freight.WaitForExitAsync();
        return (exitCode, stdout, stderr);
    }

    /// <summary>stderr is one <c>error: Freight:Urls: …</c> line that says to choose with --urls; no stack trace anywhere, nothing on stdout.</summary>
    private static string AssertOneErrorLine(string stdout, string stderr)
    {
        Assert.DoesNotContain("   at ", stdout + stderr, StringComparison.Ordinal);
        Assert.DoesNotContain("Unhandled exception", stderr, StringComparison.Ordinal);
        Assert.Equal("", stdout);
        var line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries));
        Assert.Contains("--urls", line, StringComparison.Ordinal);
        return line;
    }

    private static string Port(TcpListener listener) => ((IPEndPoint)listener.LocalEndpoint).Port.ToString(CultureInfo.InvariantCulture);

    /// <summary>A port free a moment ago (the kernel's pick for port 0, closed again).</summary>
    private static int FreePort()
    {
        using var probe = new TcpListener(IPAddress.Loopback, 0);
        probe.Start();
        return ((IPEndPoint)probe.LocalEndpoint).Port;
    }
}
