using System.Diagnostics;
using System.Globalization;
using System.Security.Cryptography;
using Freight.Bench.Peers;
using Freight.Bench.Tests.Client;
using Freight.Bench.Tests.Peers;
using Freight.Lab.Payload;

namespace Freight.Bench.Tests.Load.Command;

/// <summary>
/// <c>freight load</c> against real servers started here: nginx (a file's GET, a WebDAV PUT; one process, or a master
/// and its workers), sampled through <c>/proc</c> as a server that is not .NET, and <c>freight serve</c>'s files API. These fail, never skip,
/// when nginx is missing: <c>./test.sh</c> installs it (scripts/install-peers.sh).
/// </summary>
public sealed class LoadPeerTests(OpenFilesServer files) : IClassFixture<OpenFilesServer>
{
    private const string Missing = "nginx is not installed: run scripts/install-peers.sh as root (./test.sh does).";

    [Fact]
    public async Task NginxGetFile_ExpectBodyAndServerPid_VerifiedWithServerCpuExit0()
    {
        using var site = new PeerDirectory();
        var bytes = site.WriteFile("file.bin", 256 * 1024 + 5);
        var expected = Path.Combine(site.Path, "expected.bin");
        await File.WriteAllBytesAsync(expected, bytes);
        await using var nginx = await Nginx.StartAsync(new NginxSiteOptions { RootDirectory = site.Root, WorkDirectory = site.Work }, CancellationToken.None);
        Assert.True(nginx is not null, Missing);

        var run = await LoadCli.RunAsync(new Uri(nginx.BaseAddress, "file.bin").ToString(), "-c", "4", "-d", "2",
            "--expect-status", "200", "--expect-body", expected, "--server-pid", nginx.ProcessId.ToString(CultureInfo.InvariantCulture), "--no-progress");

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        var row = run.Row;
        Assert.True(row.Verified);
        Assert.True(row.StatusCodes!["200"] > 0);
        Assert.NotNull(row.Counters?.CpuPercent);
        Assert.NotNull(row.Server?.CpuSecondsPerGiB);
        Assert.Null(row.Counters!.ThreadPoolThreads);
        Assert.Equal(nginx.ProcessId, row.Blame!.ServerProcessId);
        Assert.StartsWith("not a .NET process", row.Blame.RuntimeCounters, StringComparison.Ordinal);
        Assert.Contains(row.Blame.Verdict, new[] { "client-bound", "server-bound", "neither" });
    }

    /// <summary>
    /// nginx as it runs in production: a master and two workers, which inherit its listening socket and serve. Given the
    /// master, the run measured the master alone, which only holds the socket ("server 0 % of 200 %", the verdict
    /// 'neither'): all three are measured, their CPU, resident sets and threads summed, and a line says so. Given a
    /// worker, or nginx by name (master and workers all hold the socket: "5 processes … name one"), the same three.
    /// </summary>
    [Theory]
    [InlineData("master")]
    [InlineData("worker")]
    [InlineData("name")]
    public async Task NginxMasterAndWorkers_ServerPidOfAnyOrProcessName_MeasuresAllThreeAndSaysSo(string named)
    {
        using var site = new PeerDirectory();
        var bytes = site.WriteFile("1m.bin", 1024 * 1024);
        await using var nginx = await Nginx.StartAsync(new NginxSiteOptions { RootDirectory = site.Root, WorkDirectory = site.Work, WorkerProcesses = 2 }, CancellationToken.None);
        Assert.True(nginx is not null, Missing);
        var (master, workers) = (nginx.ProcessId, nginx.WorkerProcessIds);
        Assert.Equal(2, workers.Count);
        string[] server = named switch
        {
            "master" => ["--server-pid", Id(master)],
            "worker" => ["--server-pid", Id(workers[1])],
            _ => ["--server-process", "nginx"],
        };

        var run = await LoadCli.RunAsync([new Uri(nginx.BaseAddress, "1m.bin").ToString(), "-c", "4", "-d", "2", "--expect-status", "200",
            "--expect-sha256", Convert.ToHexStringLower(SHA256.HashData(bytes)), .. server, "--no-progress"]);

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        var stdout = run.Stdout.Split('\n');
        Assert.Equal(
            $"server: PID {master} (nginx) and its 2 workers ({workers[0]}, {workers[1]}), which listen on :{nginx.BaseAddress.Port}"
            + (named == "worker" ? $" (PID {workers[1]}, given, is one of the workers)" : ""),
            stdout[0]);
        var blame = run.Row.Blame!;
        Assert.Equal(master, blame.ServerProcessId);
        Assert.Equal(workers, blame.ServerWorkerProcessIds);

        // nginx's processes have one thread each: three summed. The workers served every byte: the master alone read 0 %.
        Assert.Equal(3, blame.ServerThreadsMax);
        Assert.True(blame.ServerCpuCores > 0, run.Stdout);
        Assert.EndsWith(", threads max 3 (3 processes summed)", Assert.Single(stdout, line => line.StartsWith("server ", StringComparison.Ordinal)), StringComparison.Ordinal);
        Assert.StartsWith("not a .NET process", blame.RuntimeCounters, StringComparison.Ordinal);
    }

    /// <summary>
    /// A worker killed during the run (its master forks another, not measured): as when a server of one process exits,
    /// what was measured says nothing of the run's end, so no verdict, naming the worker.
    /// </summary>
    [Fact]
    public async Task NginxWorkerKilledDuringTheRun_NoVerdictNamesTheWorker()
    {
        using var site = new PeerDirectory();
        site.WriteFile("4k.bin", 4096);
        await using var nginx = await Nginx.StartAsync(new NginxSiteOptions { RootDirectory = site.Root, WorkDirectory = site.Work, WorkerProcesses = 2 }, CancellationToken.None);
        Assert.True(nginx is not null, Missing);
        var worker = nginx.WorkerProcessIds[0];

        var running = LoadCli.RunAsync(new Uri(nginx.BaseAddress, "4k.bin").ToString(), "-c", "2", "-d", "4", "--server-pid", Id(nginx.ProcessId), "--no-progress");
        await LoadCli.WaitForClientsAsync(nginx.BaseAddress.Port);
        using (var process = Process.GetProcessById(worker))
        {
            process.Kill();
        }

        var run = await running;

        LoadCli.AssertServerExitedDuringTheRun(run, worker);
    }

    /// <summary>
    /// <c>freight serve</c> behind nginx (a master and 2 workers) on this machine, the URL nginx's: given serve's PID, the
    /// run was refused as any process not listening on the URL's port is, with nothing to measure the app behind a proxy.
    /// The refusal says serve listens elsewhere and that the process on the URL's port may be a proxy in front of it.
    /// </summary>
    [Fact]
    public async Task ServeBehindNginxProxy_ServerPidWithoutThroughProxy_RefusedNamingTheProxyAndTheOption()
    {
        await using var serve = await ChildServer.StartAsync();
        using var site = new PeerDirectory();
        await using var nginx = await Nginx.StartProxyAsync(site.Work, port => ProxyTo(serve.Address, port), CancellationToken.None, workerProcesses: 2);
        Assert.True(nginx is not null, Missing);
        var (master, workers) = (nginx.ProcessId, nginx.WorkerProcessIds);

        var run = await LoadCli.RunAsync(new Uri(nginx.BaseAddress, "/healthz").ToString(), "-d", "1", "--server-pid", Id(serve.ServerProcessId), "--no-progress");

        Assert.Equal(2, run.Exit);
        Assert.Equal("", run.Stdout);
        Assert.Equal(
            $"error: --server-pid {serve.ServerProcessId} (dotnet Freight.Cli.dll) listens on :{serve.Address.Port}, not on :{nginx.BaseAddress.Port}; "
            + $"PID {master} (nginx) and its 2 workers ({workers[0]}, {workers[1]}) do: a proxy in front of it? "
            + $"Add --through-proxy to measure both, the server and the proxy, or name the process on :{nginx.BaseAddress.Port} with --server-pid.",
            run.Stderr.TrimEnd('\n'));
    }

    /// <summary>
    /// The same with <c>--through-proxy</c>: serve is measured as the server (its runtime counters too) and nginx, master and
    /// workers, as the proxy, each on its own line and in the JSON (<c>blame.proxy</c>), the bytes verified through both.
    /// </summary>
    [Fact]
    public async Task ServeBehindNginxProxy_ThroughProxy_MeasuresTheServerAndTheProxyApart()
    {
        await using var serve = await ChildServer.StartAsync();
        var bytes = DeterministicPayload.Create(1024 * 1024 + 3);
        using (var client = new HttpClient())
        {
            (await client.PutAsync(serve.Url("/files/proxied.bin"), new ByteArrayContent(bytes))).EnsureSuccessStatusCode();
        }

        using var site = new PeerDirectory();
        await using var nginx = await Nginx.StartProxyAsync(site.Work, port => ProxyTo(serve.Address, port), CancellationToken.None, workerProcesses: 2);
        Assert.True(nginx is not null, Missing);
        var (master, workers) = (nginx.ProcessId, nginx.WorkerProcessIds);

        var run = await LoadCli.RunAsync(new Uri(nginx.BaseAddress, "/files/proxied.bin").ToString(), "-c", "2", "-d", "2", "--expect-status", "200",
            "--expect-sha256", Convert.ToHexStringLower(SHA256.HashData(bytes)), "--server-pid", Id(serve.ServerProcessId), "--through-proxy", "--no-progress");

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        var stdout = run.Stdout.Split('\n');
        Assert.Equal($"server: PID {serve.ServerProcessId} (dotnet Freight.Cli.dll) listens on :{serve.Address.Port}, behind the proxy on :{nginx.BaseAddress.Port}", stdout[0]);
        Assert.Equal($"proxy: PID {master} (nginx) and its 2 workers ({workers[0]}, {workers[1]}), which listen on :{nginx.BaseAddress.Port}", stdout[1]);
        var blame = run.Row.Blame!;
        Assert.Equal(serve.ServerProcessId, blame.ServerProcessId);
        Assert.Null(blame.ServerWorkerProcessIds);
        Assert.Equal("eventpipe", blame.RuntimeCounters);
        var proxy = blame.Proxy!;
        Assert.Equal(master, proxy.ProcessId);
        Assert.Equal(workers, proxy.WorkerProcessIds);
        Assert.True(proxy.CpuCores > 0, run.Stdout);
        Assert.Equal(3, proxy.ThreadsMax);
        Assert.True(proxy.WorkingSetBytesMax > 0);
        Assert.Matches(@"^proxy      CPU [0-9.]+ s/GiB, [0-9]+ % of [0-9]+ % \([0-9]+ cores?\), RSS max [0-9.]+ MiB, threads max 3 \(3 processes summed\)$",
            Assert.Single(stdout, line => line.StartsWith("proxy ", StringComparison.Ordinal)));
        Assert.Matches(", proxy [0-9]+ % of [0-9]+ %|proxy-bound|client-bound|server-bound", Assert.Single(stdout, line => line.StartsWith("verdict ", StringComparison.Ordinal)));
        Assert.Contains(blame.Verdict, new[] { "client-bound", "server-bound", "proxy-bound", "neither" });
    }

    /// <summary>--through-proxy with the process on the URL's port named: there is no proxy in front of it, refused.</summary>
    [Fact]
    public async Task ThroughProxy_ServerListensOnTheUrlsPort_RefusedSayingThereIsNoProxy()
    {
        using var site = new PeerDirectory();
        site.WriteFile("4k.bin", 4096);
        await using var nginx = await Nginx.StartAsync(new NginxSiteOptions { RootDirectory = site.Root, WorkDirectory = site.Work }, CancellationToken.None);
        Assert.True(nginx is not null, Missing);

        var run = await LoadCli.RunAsync(new Uri(nginx.BaseAddress, "4k.bin").ToString(), "-d", "1", "--server-pid", Id(nginx.ProcessId), "--through-proxy", "--no-progress");

        Assert.Equal(2, run.Exit);
        Assert.Equal($"error: --through-proxy: --server-pid {nginx.ProcessId} (nginx) listens on :{nginx.BaseAddress.Port} itself, with no proxy in front of it: leave --through-proxy out.",
            run.Stderr.TrimEnd('\n'));
    }

    [Fact]
    public async Task NginxWebDavPut_PayloadSize_StoredBytesAreThePayloadExit0()
    {
        using var site = new PeerDirectory();
        var put = Path.Combine(site.Path, "uploads");
        await using var nginx = await Nginx.StartAsync(
            new NginxSiteOptions { RootDirectory = site.Root, WorkDirectory = site.Work, EnableWebDavPut = true, PutDirectory = put }, CancellationToken.None);
        Assert.True(nginx is not null, Missing);
        const int size = 3 * 1024 * 1024 + 1;

        var run = await LoadCli.RunAsync(new Uri(nginx.DavAddress!, "up/load.bin").ToString(), "-X", "PUT", "--size", size.ToString(CultureInfo.InvariantCulture),
            "-c", "2", "-n", "8", "--no-progress");

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        Assert.Equal("load/put", run.Row.Scenario);
        Assert.Equal(8, run.Row.StatusCodes!.GetValueOrDefault("201") + run.Row.StatusCodes!.GetValueOrDefault("204"));
        Assert.Equal(DeterministicPayload.Create(size), await File.ReadAllBytesAsync(Path.Combine(put, "up", "load.bin")));
    }

    [Fact]
    public async Task NginxWebDavPut_File_RawTransportStoresTheFileExit0()
    {
        using var site = new PeerDirectory();
        var put = Path.Combine(site.Path, "uploads");
        var bytes = site.WriteFile("upload.bin", 2 * 1024 * 1024 + 3);
        await using var nginx = await Nginx.StartAsync(
            new NginxSiteOptions { RootDirectory = site.Root, WorkDirectory = site.Work, EnableWebDavPut = true, PutDirectory = put }, CancellationToken.None);
        Assert.True(nginx is not null, Missing);

        var run = await LoadCli.RunAsync(new Uri(nginx.DavAddress!, "up/file.bin").ToString(), "-X", "PUT", "--file", Path.Combine(site.Root, "upload.bin"),
            "-c", "2", "-n", "6", "--no-progress");

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        Assert.Equal("raw-http11", run.Row.Parameters.Transport);
        Assert.Equal(6, run.Row.StatusCodes!.GetValueOrDefault("201") + run.Row.StatusCodes!.GetValueOrDefault("204"));
        Assert.Equal(bytes, await File.ReadAllBytesAsync(Path.Combine(put, "up", "file.bin")));
    }

    [Fact]
    public async Task FreightServeFilesApi_PutThenVerifiedGet_Exit0()
    {
        const int size = 1024 * 1024 + 7;
        var url = files.Url("load-" + Guid.NewGuid().ToString("N"));

        var put = await LoadCli.RunAsync(url, "-X", "PUT", "--size", size.ToString(CultureInfo.InvariantCulture), "-n", "1", "-c", "1", "--no-progress");
        var get = await LoadCli.RunAsync(url, "-c", "2", "-n", "10", "--expect-status", "200",
            "--expect-sha256", Convert.ToHexStringLower(SHA256.HashData(DeterministicPayload.Create(size))), "--no-progress");

        Assert.True(put.Exit == 0, put.Stdout + put.Stderr);
        Assert.True(put.Row.StatusCodes!.Keys.Single() is "200" or "201" or "204", string.Join(",", put.Row.StatusCodes.Keys));
        Assert.True(get.Exit == 0, get.Stdout + get.Stderr);
        Assert.Equal(10, get.Row.StatusCodes!["200"]);
    }

    [Fact]
    public async Task FreightServeHttps_PinnedCertificate_VerifiedExit0()
    {
        var name = "pinned-" + Guid.NewGuid().ToString("N");
        using (var client = new HttpClient())
        {
            (await client.PutAsync(files.Url(name), new ByteArrayContent(DeterministicPayload.Create(4096)))).EnsureSuccessStatusCode();
        }

        var run = await LoadCli.RunAsync(files.Url(name, https: true), "--pin-sha256", files.CertificateSha256, "-n", "5", "-c", "1",
            "--expect-status", "200", "--no-progress");

        Assert.True(run.Exit == 0, run.Stdout + run.Stderr);
        Assert.Equal("https", run.Row.Parameters.Scheme);
    }

    [Fact]
    public async Task FreightServeHttps_OtherPin_TlsHandshakeFailedInWordsExit1()
    {
        var run = await LoadCli.RunAsync(files.Url("absent", https: true), "--pin-sha256", new string('0', 64), "-n", "2", "-c", "1", "--no-progress");

        Assert.Equal(1, run.Exit);
        Assert.Matches(@"(?m)^failures   error 2 — first: TLS handshake failed: the server's certificate is not the one pinned$", run.Stdout);
        Assert.Equal("tls_failed", run.Row.FirstFailure!.Code);
    }

    private static string Id(int processId) => processId.ToString(CultureInfo.InvariantCulture);

    /// <summary>
    /// nginx as a reverse proxy runs in front of an app server: HTTP/1.1 kept alive to <paramref name="origin"/> (the
    /// upstream's keepalive; proxy_pass alone opens a connection a request), bodies streamed both ways, never spooled to a
    /// temporary file (deploy/nginx/freight.conf's settings, which the serve tests run as shipped).
    /// </summary>
    private static string ProxyTo(Uri origin, int port) => $$"""
        upstream origin {
            server {{origin.Authority}};
            keepalive 64;
        }

        server {
            listen 127.0.0.1:{{port}};
            client_max_body_size 0;
            location / {
                proxy_pass http://origin;
                proxy_http_version 1.1;
                proxy_set_header Connection "";
                proxy_set_header Host $host;
                proxy_request_buffering off;
                proxy_buffering off;
            }
        }
        """;
}
