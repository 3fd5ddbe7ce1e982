namespace Freight.Server.Tests.Sample;

/// <summary>
/// samples/Freight.Sample as a user builds it (<see cref="SampleBuild"/>: packed and built once per test run), running
/// in a child process on 127.0.0.1:0 with its files in a temp folder; started once for the class.
/// </summary>
public sealed class SampleApp : IAsyncLifetime
{
    private readonly string _directory = Path.Combine(Path.GetTempPath(), "freight-sample-tests", Guid.NewGuid().ToString("N"));
    private SampleProcess? _process;

    /// <summary>The build output the sample runs from (artifacts/sample).</summary>
    public string BuildOutput => SampleBuild.OutputDirectory;

    /// <summary>The folder the sample's file-system store keeps its files in.</summary>
    public string FilesDirectory => Path.Combine(_directory, "files");

    /// <summary>The sample's http:// address (HTTP/1.1), for raw requests.</summary>
    public Uri HttpAddress => _process?.Listening.HttpAddress ?? throw new InvalidOperationException("The sample is not started.");

    public HttpClient Client { get; } = new();

    public async Task InitializeAsync()
    {
        _process = await SampleProcess.StartAsync(FilesDirectory, Path.Combine(_directory, "uploads"), []);
        Client.BaseAddress = _process.Listening.HttpAddress;
    }

    public async Task DisposeAsync()
    {
        Client.Dispose();
        if (_process is not null)
        {
            await _process.DisposeAsync();
        }

        if (Directory.Exists(_directory))
        {
            Directory.Delete(_directory, recursive: true);
        }
    }
}
