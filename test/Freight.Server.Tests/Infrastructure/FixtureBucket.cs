using Freight.Testing.Rgw;

namespace Freight.Server.Tests.Infrastructure;

/// <summary>
/// A server fixture's own bucket on the test process's RGW (<see cref="SharedRgw"/>): made when the server
/// starts, deleted once it has stopped (with its space: big payloads stay in RGW's RAM until then).
/// </summary>
public sealed class FixtureBucket
{
    private RgwBucket? _bucket;

    public RgwBucket Bucket => _bucket ?? throw new InvalidOperationException("The server is not started.");

    /// <summary>Creates the bucket; returns the arguments that put the server's store in it.</summary>
    public async Task<string[]> CreateAsync(string hint)
    {
        _bucket = await SharedRgw.CreateBucketAsync(hint);
        return _bucket.FreightArguments();
    }

    public async Task DeleteAsync()
    {
        if (_bucket is not null)
        {
            await _bucket.DisposeAsync();
        }
    }
}
