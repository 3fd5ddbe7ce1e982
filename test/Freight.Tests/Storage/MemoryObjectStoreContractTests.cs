using Freight.Storage;

namespace Freight.Tests.Storage;

/// <summary>The store contract on <see cref="MemoryObjectStore"/>.</summary>
public sealed class MemoryObjectStoreContractTests : ObjectStoreContractTests
{
    protected override IObjectStore CreateStore() => new MemoryObjectStore();
}
