using System.Diagnostics;

namespace Freight.Bench.Measure;

/// <summary>
/// <c>freight serve</c> as a child process on 127.0.0.1:0 (HTTP and HTTPS), so its CPU and memory are
/// its own and can be told apart from the client's. Stopped (killed) on dispose.
/// </summary>
public sealed class ServerProcess : IAsyncDisposable
{
    private readonly Process _process;

    private ServerProcess(Process process, Uri http, Uri https, string certificateSha256)
    {
        _process = process;
        Http = http;
        Https = https;
        CertificateSha256 = certificateSha256;
    }

    public Uri Http { get; }

    public Uri Https { get; }

    public string CertificateSha256 { get; }

    public int ProcessId => _process.Id;

    /// <summary>Starts the server next to this assembly (Freight.Cli.dll) and waits for its addresses.</summary>
    public static async Task<ServerProcess> StartAsync(string dataDirectory, IReadOnlyList<string> extraArguments, string? temporaryDirectory, CancellationToken cancellationToken)
    {
        var cli = Path.Combine(AppContext.BaseDirectory, "Freight.Cli.dll");
        if (!File.Exists(cli))
        {
            throw new FileNotFoundException("Cannot find Freight.Cli.dll next to the bench to start the embedded server.", cli);
        }

        var muxer = Environment.ProcessPath is { } self && Path.GetFileNameWithoutExtension(self) == "dotnet" ? self : "dotnet";
        var start = new ProcessStartInfo(muxer)
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in new[] { cli, "serve", "--urls", "http://127.0.0.1:0;https://127.0.0.1:0", "--data-dir", dataDirectory, "--Freight:StopWhenInputCloses", "true" }.Concat(extraArguments))
        {
            start.ArgumentList.Add(argument);
        }

        if (temporaryDirectory is not null)
        {
            start.Environment["ASPNETCORE_TEMP"] = temporaryDirectory;
        }

        var process = Process.Start(start) ?? throw new InvalidOperationException("Could not start freight serve.");
        process.ErrorDataReceived += (_, _) => { };
        process.BeginErrorReadLine();
        Uri? http = null, https = null;
        string? pin = null;
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(TimeSpan.FromSeconds(60));
        try
        {
            while (http is null || https is null || pin is null)
            {
                var line = await process.StandardOutput.ReadLineAsync(timeout.Token)
                    ?? throw new InvalidOperationException($"freight serve exited (code {(process.HasExited ? process.ExitCode : -1)}) before it was ready.");
                if (line.StartsWith("listening: ", StringComparison.Ordinal))
                {
                    var uri = new Uri(line["listening: ".Length..].Trim());
                    if (uri.Scheme == "https")
                    {
                        https = uri;
                    }
                    else
                    {
                        http = uri;
                    }
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

        // Keep draining stdout so the server never blocks on a full pipe.
        _ = process.StandardOutput.BaseStream.CopyToAsync(Stream.Null, CancellationToken.None);
        return new ServerProcess(process, http, https, pin);
    }

    /// <summary>Pins the server to the given CPUs (a bit mask), where the OS allows it.</summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void SetAffinity(nint mask) => _process.ProcessorAffinity = mask;

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
