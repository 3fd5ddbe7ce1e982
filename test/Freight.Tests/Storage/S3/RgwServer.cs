using System.Collections.Concurrent;
using Amazon.S3;
using Freight.Testing.Rgw;

namespace Freight.Tests.Storage.S3;

/// <summary>
/// A real S3 server for the S3 tests of this project: one <see cref="RgwProcess"/> (Ceph's RADOS Gateway on
/// 127.0.0.1, memstore) for the classes of <see cref="RgwCollection"/>, stopped when the collection is done.
/// Installs the packages when they are missing; without root and apt-get it fails with the script's reason:
/// these tests run in CI and never skip.
/// </summary>
public sealed class RgwServer : IAsyncLifetime
{
    public const string AccessKey = RgwProcess.AccessKey;
    public const string SecretKey = RgwProcess.SecretKey;

    private readonly ConcurrentDictionary<Type, Lazy<Task<string>>> _buckets = new();
    private RgwProcess? _rgw;

    private RgwProcess Rgw => _rgw ?? throw new InvalidOperationException("RGW is not started.");

    /// <summary>The S3 endpoint, e.g. http://127.0.0.1:7480.</summary>
    public Uri Endpoint => Rgw.Endpoint;

    /// <summary>A client shared by the tests (the SDK's clients are thread-safe), configured as <see cref="CreateConfig"/>.</summary>
    public AmazonS3Client Client => Rgw.Client;

    /// <inheritdoc cref="RgwProcess.CreateConfig"/>
    public AmazonS3Config CreateConfig() => Rgw.CreateConfig();

    public AmazonS3Client CreateClient(AmazonS3Config config) => Rgw.CreateClient(config);

    /// <summary>The bucket of <paramref name="testClass"/>, created on first use; one per class so classes never see each other's keys.</summary>
    public Task<string> BucketForAsync(Type testClass) =>
        _buckets.GetOrAdd(testClass, type => new Lazy<Task<string>>(() => Rgw.CreateBucketAsync(type.Name))).Value;

    public async Task InitializeAsync() => _rgw = await RgwProcess.StartAsync();

    public async Task DisposeAsync()
    {
        if (_rgw is not null)
        {
            await _rgw.DisposeAsync();
        }
    }
}
