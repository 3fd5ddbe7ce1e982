using System.Buffers;
using System.Collections.Concurrent;

namespace Freight.Transport;

/// <summary>
/// A memory pool of large pinned blocks for Kestrel's socket transport. Kestrel receives into whatever
/// the pool's block has left: with its default 4 KiB blocks, an upload costs one recv syscall, one pipe
/// flush and one thread-pool dispatch per 4 KiB. With 64 KiB blocks each recv can take 16× more.
/// Optionally a bounded set of still larger blocks goes first to whoever rents while one is free (see
/// <see cref="LargeBlockMemoryPool(int, long, int, int)"/>): larger receives at a cost in memory that does not grow with
/// the connections.
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

    private readonly ConcurrentQueue<byte[]> _freeBulk = new();
    private int _bulkAllocated;

    /// <summary>A pool of <paramref name="blockSize"/>-byte blocks keeping free blocks of at most <paramref name="maxPooledBytes"/> in all for reuse.</summary>
    public LargeBlockMemoryPool(int blockSize, long maxPooledBytes)
        : this(blockSize, maxPooledBytes, bulkBlockSize: 0, bulkBlocks: 0)
    {
    }

    /// <summary>
    /// A pool of <paramref name="blockSize"/>-byte blocks as above, and besides them at most <paramref name="bulkBlocks"/>
    /// blocks of <paramref name="bulkBlockSize"/> bytes. A rent takes a bulk block while one is free or fewer than
    /// <paramref name="bulkBlocks"/> exist, and a block of <paramref name="blockSize"/> otherwise. Bulk blocks are kept
    /// for reuse until the pool is disposed: however many connections rent, they are never let go to the GC and
    /// allocated again, which is what larger blocks for everyone did at 256 connections
    /// (docs/results/2026-11-28-mib-blocks.md).
    /// </summary>
    public LargeBlockMemoryPool(int blockSize, long maxPooledBytes, int bulkBlockSize, int bulkBlocks)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(blockSize, 4096);
        ArgumentOutOfRangeException.ThrowIfNegative(maxPooledBytes);
        ArgumentOutOfRangeException.ThrowIfNegative(bulkBlocks);
        if (bulkBlocks > 0)
        {
            ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(bulkBlockSize, blockSize);
        }

        BlockSize = blockSize;
        _maxPooledBlocks = (int)Math.Min(maxPooledBytes / blockSize, int.MaxValue);
        BulkBlockSize = bulkBlocks > 0 ? bulkBlockSize : 0;
        BulkBlocks = bulkBlocks;
    }

    /// <summary>The size of every block but the bulk ones, and the least any rent returns.</summary>
    public int BlockSize { get; }

    /// <summary>The size of the bulk blocks; 0 when there are none.</summary>
    public int BulkBlockSize { get; }

    /// <summary>The most bulk blocks that exist at once.</summary>
    public int BulkBlocks { get; }

    /// <inheritdoc />
    /// <remarks>
    /// <see cref="BlockSize"/>, even with bulk blocks: a rent may ask for no more, and what a bulk block holds beyond it is
    /// a bonus the pipe uses as it comes.
    /// </remarks>
    public override int MaxBufferSize => BlockSize;

    /// <inheritdoc />
    public override IMemoryOwner<byte> Rent(int minBufferSize = -1)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(minBufferSize, BlockSize);
        if (TryRentBulk() is { } bulk)
        {
            return new Lease(this, bulk);
        }

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
        _freeBulk.Clear();
    }

    private byte[]? TryRentBulk()
    {
        if (BulkBlocks == 0)
        {
            return null;
        }

        if (_freeBulk.TryDequeue(out var block))
        {
            return block;
        }

        // Read first: once every bulk block exists (most rents at many connections), no contended increment and undo.
        if (Volatile.Read(ref _bulkAllocated) >= BulkBlocks)
        {
            return null;
        }

        if (Interlocked.Increment(ref _bulkAllocated) > BulkBlocks)
        {
            Interlocked.Decrement(ref _bulkAllocated);
            return null;
        }

        return GC.AllocateUninitializedArray<byte>(BulkBlockSize, pinned: true);
    }

    private void Return(byte[] block)
    {
        if (block.Length == BulkBlockSize)
        {
            _freeBulk.Enqueue(block);
            return;
        }

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
