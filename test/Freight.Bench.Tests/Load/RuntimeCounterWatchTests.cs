using System.Diagnostics;
using System.Net.Sockets;
using Freight.Bench.Load.Blame;

namespace Freight.Bench.Tests.Load;

/// <summary>Which processes get an EventPipe session: a stale diagnostics socket does not make a process .NET.</summary>
public sealed class RuntimeCounterWatchTests
{
    [Fact]
    public async Task TryStart_NativeProcessWhoseIdHasAStaleDiagnosticsSocket_IsNotANetProcess()
    {
        // A native process, and the socket a killed .NET process with the same id would have left behind.
        using var native = Process.Start(new ProcessStartInfo("sleep", "30") { UseShellExecute = false })!;
        var stale = Path.Combine(Path.GetTempPath(), $"dotnet-diagnostic-{native.Id}-1-socket");
        using (var listener = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified))
        {
            listener.Bind(new UnixDomainSocketEndPoint(stale));
        }

        try
        {
            await using var watch = RuntimeCounterWatch.TryStart(native.Id, out var reason);

            Assert.Null(watch);
            Assert.StartsWith("not a .NET process", reason, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(stale);
            native.Kill();
        }
    }
}
