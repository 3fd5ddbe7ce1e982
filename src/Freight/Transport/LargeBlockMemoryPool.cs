using System.Buffers;
using System.Collections.Concurrent;

namespace Freight.Transport;

/// <summary>
/// A memory pool of large pinned blocks for Kestrel's socket transport. Kestrel receives into whatever
/// the pool's block has left: with its default 4 KiB blocks, an upload costs one recv syscall, one pipe
/// flush and one thread-pool dispatch per 4 KiB. With 64 KiB blocks each recv can take 16× more.
/// </summary>
public sealed class LargeBlockMemoryPool : MemoryPool<byte>
{
    /// <summary>
    /// Bytes of free blocks kept for reuse, whatever the block size (1,024 blocks of 64 KiB, 64 of 1 MiB); more are let
    /// go to the GC. A budget in bytes, not in blocks, so a larger block size does not multiply what an idle server holds.
    /// </summary>
    public const long DefaultMaxPooledBytes = 64L * 1024 * 1024;

    private readonly ConcurrentQueue<byte[]> _free = new();
    private readonly int _maxPooledBlocks;
    private int _pooled;

    /// <summary>A pool of <paramref name="blockSize"/>-byte blocks keeping free blocks of at most <paramref name="maxPooledBytes"/> in all for reuse.</summary>
    public LargeBlockMemoryPool(int blockSize, long maxPooledBytes)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(blockSize, 4096);
        ArgumentOutOfRangeException.ThrowIfNegative(maxPooledBytes);
        BlockSize = blockSize;
        _maxPooledBlocks = (int)Math.Min(maxPooledBytes / blockSize, int.MaxValue);
    }

    /// <summary>The size of every block.</summary>
    public int BlockSize { get; }

    /// <inheritdoc />
    public override int MaxBufferSize => BlockSize;

    /// <inheritdoc />
    public override IMemoryOwner<byte> Rent(int minBufferSize = -1)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(minBufferSize, BlockSize);
        if (_free.TryDequeue(out var block))
        {
            Interlocked.Decrement(ref _pooled);
        }
        else
        {
            // Pinned: the socket layer pins receive buffers anyway; pinned-heap blocks never move or fragment gen 0.
            block = GC.AllocateUninitializedArray<byte>(BlockSize, pinned: true);
        }

        return new Lease(this, block);
    }

    /// <inheritdoc />
    protected override void Dispose(bool disposing)
    {
        _free.Clear();
    }

    private void Return(byte[] block)
    {
        if (Interlocked.Increment(ref _pooled) <= _maxPooledBlocks)
        {
            _free.Enqueue(block);
        }
        else
        {
            Interlocked.Decrement(ref _pooled);
        }
    }

    private sealed class Lease(LargeBlockMemoryPool pool, byte[] block) : IMemoryOwner<byte>
    {
        private byte[]? _block = block;

        public Memory<byte> Memory => _block ?? throw new ObjectDisposedException(nameof(Lease));

        public void Dispose()
        {
            var returned = Interlocked.Exchange(ref _block, null);
            if (returned is not null)
            {
                pool.Return(returned);
            }
        }
    }
}
