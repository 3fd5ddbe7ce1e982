using System.Diagnostics;

namespace Freight.Bench.Measure;

/// <summary>
/// A <c>freight</c> child process (<c>serve</c> or <c>tcp-sink</c>) on 127.0.0.1:0, so its CPU and memory
/// are its own and can be told apart from the bench's. It reads <c>listening: URL</c> (and
/// <c>certificate-sha256: HEX</c>) lines to learn where it is; it stops when the bench closes its stdin
/// (even if the bench is killed) and is killed on dispose.
/// </summary>
public sealed class FreightProcess : IAsyncDisposable
{
    private readonly Process _process;

    private FreightProcess(Process process, IReadOnlyList<Uri> listening, string? certificateSha256)
    {
        _process = process;
        Listening = listening;
        CertificateSha256 = certificateSha256;
    }

    public IReadOnlyList<Uri> Listening { get; }

    public string? CertificateSha256 { get; }

    public Uri? Http => Listening.FirstOrDefault(u => u.Scheme == "http");

    public Uri? Https => Listening.FirstOrDefault(u => u.Scheme == "https");

    /// <summary>The process id, for tools that attach to it (<see cref="InstructionCounter"/>).</summary>
    public int ProcessId => _process.Id;
    /// <summary>The cleartext HTTP/2 (prior knowledge) listener, as the http:// base address a client sends h2 to.</summary>
    public Uri? H2c => Listening.FirstOrDefault(u => u.Scheme == "h2c") is { } h2c ? new UriBuilder(h2c) { Scheme = Uri.UriSchemeHttp }.Uri : null;

    /// <summary>
    /// <c>freight serve</c> on HTTP, HTTPS and h2c loopback ports with <paramref name="dataDirectory"/>;
    /// <paramref name="temporaryDirectory"/> becomes its ASPNETCORE_TEMP.
    /// </summary>
    public static Task<FreightProcess> StartServerAsync(string dataDirectory, IReadOnlyList<string> extraArguments, string? temporaryDirectory, CancellationToken cancellationToken)
    {
        string[] arguments = ["serve", "--urls", "http://127.0.0.1:0;https://127.0.0.1:0;h2c://127.0.0.1:0", "--data-dir", dataDirectory, "--Freight:StopWhenInputCloses", "true", .. extraArguments];
        var environment = temporaryDirectory is null ? null : new Dictionary<string, string> { ["ASPNETCORE_TEMP"] = temporaryDirectory };
        return StartAsync(arguments, environment, listeningLines: 3, certificate: true, cancellationToken);
    }

    /// <summary><c>freight tcp-sink</c>: the far end of the TCP ceiling probe.</summary>
    public static Task<FreightProcess> StartTcpSinkAsync(CancellationToken cancellationToken) =>
        StartAsync(["tcp-sink"], null, listeningLines: 1, certificate: false, cancellationToken);

    /// <summary>Pins the process to the given CPUs (a bit mask).</summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void SetAffinity(nint mask) => _process.ProcessorAffinity = mask;

    private static async Task<FreightProcess> StartAsync(IReadOnlyList<string> arguments, Dictionary<string, string>? environment, int listeningLines, bool certificate, CancellationToken cancellationToken)
    {
        var cli = Path.Combine(AppContext.BaseDirectory, "Freight.Cli.dll");
        if (!File.Exists(cli))
        {
            throw new FileNotFoundException("Cannot find Freight.Cli.dll next to the bench to start its child processes.", cli);
        }

        var muxer = Environment.ProcessPath is { } self && Path.GetFileNameWithoutExtension(self) == "dotnet" ? self : "dotnet";
        var start = new ProcessStartInfo(muxer)
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add(cli);
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        foreach (var (name, value) in environment ?? [])
        {
            start.Environment[name] = value;
        }

        var process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start freight {arguments[0]}.");
        _ = process.StandardError.BaseStream.CopyToAsync(Stream.Null, CancellationToken.None);
        var listening = new List<Uri>();
        string? pin = null;
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(TimeSpan.FromSeconds(60));
        try
        {
            while (listening.Count < listeningLines || (certificate && pin is null))
            {
                var line = await process.StandardOutput.ReadLineAsync(timeout.Token)
                    ?? throw new InvalidOperationException($"freight {arguments[0]} exited (code {(process.HasExited ? process.ExitCode : -1)}) before it was ready.");
                if (line.StartsWith("listening: ", StringComparison.Ordinal))
                {
                    listening.Add(new Uri(line["listening: ".Length..].Trim()));
                }
                else if (line.StartsWith("certificate-sha256: ", StringComparison.Ordinal))
                {
                    pin = line["certificate-sha256: ".Length..].Trim();
                }
            }
        }
        catch
        {
            process.Kill(entireProcessTree: true);
            process.Dispose();
            throw;
        }

        // Keep draining stdout so the child never blocks on a full pipe.
        _ = process.StandardOutput.BaseStream.CopyToAsync(Stream.Null, CancellationToken.None);
        return new FreightProcess(process, listening, pin);
    }

    public async ValueTask DisposeAsync()
    {
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            await _process.WaitForExitAsync();
        }

        _process.Dispose();
    }
}
