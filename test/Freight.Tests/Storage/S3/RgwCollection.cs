namespace Freight.Tests.Storage.S3;

/// <summary>The test classes that share one <see cref="RgwServer"/> (one cluster per test run).</summary>
[CollectionDefinition(Name)]
public sealed class RgwCollection : ICollectionFixture<RgwServer>
{
    public const string Name = "RGW";
}
