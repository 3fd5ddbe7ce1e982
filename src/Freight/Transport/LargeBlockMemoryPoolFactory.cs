using System.Buffers;
using Microsoft.AspNetCore.Connections;

namespace Freight.Transport;

/// <summary>Gives Kestrel's transport <see cref="LargeBlockMemoryPool"/>s (registered as <see cref="IMemoryPoolFactory{T}"/>).</summary>
public sealed class LargeBlockMemoryPoolFactory(int blockSize, long maxPooledBytes) : IMemoryPoolFactory<byte>
{
    /// <inheritdoc />
    public MemoryPool<byte> Create(MemoryPoolOptions? options = null) => new LargeBlockMemoryPool(blockSize, maxPooledBytes);
}
