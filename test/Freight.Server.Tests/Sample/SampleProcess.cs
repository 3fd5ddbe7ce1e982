using System.Security.Cryptography.X509Certificates;
using Freight.Server.Hosting;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Sample;

/// <summary>
/// The sample app (<see cref="SampleBuild"/>) running in a child process as a user runs it, configured only through
/// its command line: 127.0.0.1 port 0 over http:// (HTTP/1.1) and https:// (HTTP/1.1 and HTTP/2 by ALPN) with a
/// certificate made for it and handed to Kestrel as <c>Kestrel:Certificates:Default</c>, its file-system store in the
/// folders given, and any further configuration keys (<c>--Freight:Files:…</c>) the caller passes.
/// </summary>
internal sealed class SampleProcess : IAsyncDisposable
{
    private readonly FreightProcess _process;
    private readonly string _directory;

    private SampleProcess(FreightProcess process, string directory, ListeningServer listening)
    {
        _process = process;
        _directory = directory;
        Listening = listening;
    }

    /// <summary>Where the sample listens, and its certificate's fingerprint.</summary>
    public ListeningServer Listening { get; }

    /// <summary>Builds the sample if this test run has not yet, starts it, and waits for its two <c>listening:</c> lines.</summary>
    public static async Task<SampleProcess> StartAsync(string filesDirectory, string uploadsDirectory, IEnumerable<string> arguments)
    {
        var assembly = await SampleBuild.AssemblyAsync();
        // Its working directory, holding the certificate; the store's folders are the caller's.
        var directory = Path.Combine(Path.GetTempPath(), "freight-sample-tests", Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(directory);
        var certificatePath = Path.Combine(directory, "certificate.pfx");
        var password = Guid.NewGuid().ToString("N");
        string fingerprint;
        using (var certificate = SelfSignedCertificate.Create())
        {
            await File.WriteAllBytesAsync(certificatePath, certificate.Export(X509ContentType.Pkcs12, password));
            fingerprint = SelfSignedCertificate.Fingerprint(certificate);
        }

        var process = FreightProcess.StartApp(directory, assembly,
        [
            "--urls", "http://127.0.0.1:0;https://127.0.0.1:0",
            "--Kestrel:Certificates:Default:Path=" + certificatePath,
            "--Kestrel:Certificates:Default:Password=" + password,
            "--Freight:FileSystem:RootDirectory=" + filesDirectory,
            "--Freight:FileSystem:UploadsDirectory=" + uploadsDirectory,
            // As the sample's appsettings.json says (it is not read: the working directory is not the build output).
            "--Logging:LogLevel:Default=Warning",
            .. arguments,
        ]);
        try
        {
            var lines = await process.ReadUntilListeningAsync(2);
            // Drained so that the app's console logger never blocks on a full pipe.
            _ = process.ReadRestOfOutputAsync();
            return new SampleProcess(process, directory, new ListeningServer(Address(lines, "http://"), Address(lines, "https://"), fingerprint));
        }
        catch
        {
            await process.DisposeAsync();
            Directory.Delete(directory, recursive: true);
            throw;
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _process.DisposeAsync();
        Directory.Delete(_directory, recursive: true);
    }

    private static Uri Address(IReadOnlyList<string> lines, string scheme)
    {
        const string Listening = "listening: ";
        return new Uri(lines.Single(line => line.StartsWith(Listening + scheme, StringComparison.Ordinal))[Listening.Length..]);
    }
}
