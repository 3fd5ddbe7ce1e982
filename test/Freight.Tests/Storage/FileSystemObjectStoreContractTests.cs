using Freight.Storage;

namespace Freight.Tests.Storage;

/// <summary>The store contract on <see cref="FileSystemObjectStore"/>, each test in its own temp directory.</summary>
public sealed class FileSystemObjectStoreContractTests : ObjectStoreContractTests, IDisposable
{
    private readonly TempDirectory _dir = new();

    protected override IObjectStore CreateStore() => new FileSystemObjectStore(new FileSystemStoreOptions { RootDirectory = _dir.Path });

    public void Dispose() => _dir.Dispose();
}
