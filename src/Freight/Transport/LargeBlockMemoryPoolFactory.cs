using System.Buffers;
using Microsoft.AspNetCore.Connections;

namespace Freight.Transport;

/// <summary>Gives Kestrel's transport <see cref="LargeBlockMemoryPool"/>s (registered as <see cref="IMemoryPoolFactory{T}"/>).</summary>
/// <remarks>Each pool is built with these arguments (see <see cref="LargeBlockMemoryPool(int, long, int, int)"/>).</remarks>
public sealed class LargeBlockMemoryPoolFactory(int blockSize, long maxPooledBytes, int bulkBlockSize = 0, int bulkBlocks = 0) : IMemoryPoolFactory<byte>
{
    /// <inheritdoc />
    public MemoryPool<byte> Create(MemoryPoolOptions? options = null) => new LargeBlockMemoryPool(blockSize, maxPooledBytes, bulkBlockSize, bulkBlocks);
}
