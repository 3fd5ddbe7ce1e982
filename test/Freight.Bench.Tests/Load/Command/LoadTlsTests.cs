using System.Net;
using Freight.Bench.Results;
using Freight.Server.Hosting;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.Extensions.Logging;

namespace Freight.Bench.Tests.Load.Command;

/// <summary><c>freight load https://…</c> against a server it cannot trust, or one that speaks no TLS: why, and what to do.</summary>
public sealed class LoadTlsTests
{
    [Fact]
    public async Task Get_SelfSignedCertificate_TlsFailureSaysHowToTrustIt()
    {
        using var certificate = SelfSignedCertificate.Create();
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(kestrel => kestrel.Listen(IPAddress.Loopback, 0, listen => listen.UseHttps(certificate)));
        await using var app = builder.Build();
        app.MapGet("/ok", () => "ok");
        await app.StartAsync();
        var url = new Uri(LoopbackApp.AddressOf(app), "/ok").ToString();

        var untrusted = await LoadCli.RunAsync(url, "-c", "1", "-n", "1", "--no-progress");
        var pinned = await LoadCli.RunAsync(url, "-c", "1", "-n", "1", "--expect-status", "200", "--no-progress",
            "--pin-sha256", SelfSignedCertificate.Fingerprint(certificate));

        Assert.Equal(1, untrusted.Exit);
        Assert.Equal("tls_failed", untrusted.Row.FirstFailure?.Code);
        Assert.StartsWith("TLS handshake failed: the remote certificate is invalid", untrusted.Row.FirstFailure!.Message, StringComparison.Ordinal);
        Assert.EndsWith("UntrustedRoot; -k skips the check, or --pin-sha256 HEX trusts the one certificate with that SHA-256",
            untrusted.Row.FirstFailure.Message, StringComparison.Ordinal);
        Assert.True(pinned.Exit == 0, pinned.Stdout + pinned.Stderr);
        await app.StopAsync();
    }

    [Fact]
    public async Task Get_HttpsToAPlainHttpPort_SaysTheServerAnsweredInCleartext()
    {
        await using var server = await LoadTargetServer.StartAsync();
        var url = new UriBuilder(server.Url("/payload/16")) { Scheme = Uri.UriSchemeHttps }.Uri.ToString();

        var run = await LoadCli.RunAsync(url, "-c", "1", "-n", "1", "--no-progress");

        Assert.Equal(1, run.Exit);
        Assert.Equal(new FailureReason("tls_failed", "TLS handshake failed: the server answered in cleartext: use http://"), run.Row.FirstFailure);
        Assert.Contains("first: TLS handshake failed: the server answered in cleartext: use http://\n", run.Stdout, StringComparison.Ordinal);
    }
}
