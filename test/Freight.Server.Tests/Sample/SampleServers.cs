using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using Freight.Server.Tests.Tus;

namespace Freight.Server.Tests.Sample;

/// <summary>
/// The files-API suites against the sample app built from the packages (its file-system store on
/// <see cref="FilesServer.FilesDirectory"/>, its tus uploads in <c>{DataDirectory}/tus</c>), mapped at the prefixes the
/// suites use (/files, /tus). A child process per test class, as the in-process fixtures have a server each.
/// </summary>
public sealed class SampleFilesServer() : FilesServer(SampleConfiguration.Arguments)
{
    private SampleProcess? _sample;

    protected override async Task<ListeningServer> StartAsync(string[] arguments)
    {
        _sample = await SampleProcess.StartAsync(FilesDirectory!, Path.Combine(DataDirectory, "tus"), arguments);
        return _sample.Listening;
    }

    protected override async Task StopAsync()
    {
        if (_sample is not null)
        {
            await _sample.DisposeAsync();
        }
    }
}

/// <summary>The tus suites against the sample app built from the packages (see <see cref="SampleFilesServer"/>).</summary>
public sealed class SampleTusServer() : TusServer(SampleConfiguration.Arguments)
{
    private SampleProcess? _sample;

    protected override async Task<ListeningServer> StartAsync(string[] arguments)
    {
        _sample = await SampleProcess.StartAsync(FilesDirectory!, TusDirectory!, arguments);
        return _sample.Listening;
    }

    protected override async Task StopAsync()
    {
        if (_sample is not null)
        {
            await _sample.DisposeAsync();
        }
    }
}

/// <summary>What the suites need of the sample, given as the configuration keys a user of the library would set.</summary>
internal static class SampleConfiguration
{
    /// <summary>
    /// 64 uploads in flight per client, as the in-process file-system fixtures (the concurrent-writer tests measure the
    /// store, not the limiter); files of up to 4 GiB, <c>freight serve</c>'s body limit: the sample keeps Kestrel's
    /// default MaxRequestBodySize (30 MB), which MaxFileBytes lifts for the files API's uploads, so the round trip's
    /// 256 MiB bodies fit (Tus-Max-Size follows MaxFileBytes).
    /// </summary>
    public static readonly string[] Arguments =
    [
        "--Freight:Files:MaxConcurrentUploadsPerClient", "64",
        "--Freight:Files:MaxFileBytes", "4294967296",
    ];
}
