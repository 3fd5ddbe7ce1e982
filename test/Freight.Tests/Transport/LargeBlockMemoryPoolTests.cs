using System.Buffers;
using System.Runtime.InteropServices;
using Freight.Transport;

namespace Freight.Tests.Transport;

public sealed class LargeBlockMemoryPoolTests
{
    private const int BlockSize = 64 * 1024;
    private const int BulkSize = 4 * BlockSize;

    private static byte[] ArrayOf(IMemoryOwner<byte> lease)
    {
        Assert.True(MemoryMarshal.TryGetArray<byte>(lease.Memory, out var segment));
        Assert.Equal(0, segment.Offset);
        return segment.Array!;
    }

    [Theory]
    [InlineData(-1)]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(4096)]
    [InlineData(BlockSize)]
    public void Rent_AnySizeUpToBlockSize_ReturnsExactlyBlockSize(int minBufferSize)
    {
        using var pool = new LargeBlockMemoryPool(BlockSize, 4 * BlockSize);

        using var lease = pool.Rent(minBufferSize);

        Assert.Equal(BlockSize, lease.Memory.Length);
        Assert.Equal(BlockSize, ArrayOf(lease).Length);
    }

    [Fact]
    public void Rent_NoArgument_ReturnsExactlyBlockSize()
    {
        using var pool = new LargeBlockMemoryPool(BlockSize, 4 * BlockSize);

        using var lease = pool.Rent();

        Assert.Equal(BlockSize, lease.Memory.Length);
    }

    [Fact]
    public void MaxBufferSize_Always_EqualsBlockSize()
    {
        using var pool = new LargeBlockMemoryPool(BlockSize, 4 * BlockSize);

        Assert.Equal(BlockSize, pool.BlockSize);
        Assert.Equal(BlockSize, pool.MaxBufferSize);
    }

    [Fact]
    public void Rent_AboveBlockSize_Throws()
    {
        using var pool = new LargeBlockMemoryPool(BlockSize, 4 * BlockSize);

        Assert.Throws<ArgumentOutOfRangeException>(() => pool.Rent(BlockSize + 1));
    }

    [Fact]
    public void Constructor_BlockSizeBelow4KiB_Throws()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new LargeBlockMemoryPool(4095, 4 * 4096));
    }

    [Fact]
    public void Rent_BlockSize4KiB_Accepted()
    {
        using var pool = new LargeBlockMemoryPool(4096, 4 * 4096);
        using var lease = pool.Rent();

        Assert.Equal(4096, lease.Memory.Length);
    }

    [Fact]
    public void Rent_AfterReturn_ReusesSameArray()
    {
        using var pool = new LargeBlockMemoryPool(BlockSize, 4 * BlockSize);
        var first = pool.Rent();
        var array = ArrayOf(first);
        first.Dispose();

        using var second = pool.Rent();

        Assert.Same(array, ArrayOf(second));
    }

    [Fact]
    public void Rent_TwoLeasesOutstanding_DistinctArrays()
    {
        using var pool = new LargeBlockMemoryPool(BlockSize, 4 * BlockSize);

        using var a = pool.Rent();
        using var b = pool.Rent();

        Assert.NotSame(ArrayOf(a), ArrayOf(b));
    }

    [Fact]
    public void Dispose_LeaseTwice_ReturnsBlockOnce()
    {
        // A second dispose must not return the block again: two later leases would then share one array.
        using var pool = new LargeBlockMemoryPool(BlockSize, 4 * BlockSize);
        var lease = pool.Rent();
        var array = ArrayOf(lease);

        lease.Dispose();
        lease.Dispose();
        using var b = pool.Rent();
        using var c = pool.Rent();

        Assert.Same(array, ArrayOf(b));
        Assert.NotSame(ArrayOf(b), ArrayOf(c));
    }

    [Fact]
    public void Memory_DisposedLease_Throws()
    {
        using var pool = new LargeBlockMemoryPool(BlockSize, 4 * BlockSize);
        var lease = pool.Rent();
        lease.Dispose();

        Assert.Throws<ObjectDisposedException>(() => lease.Memory);
    }

    [Fact]
    public void Return_MoreThanTheBudget_KeepsOnlyWhatFitsIt()
    {
        using var pool = new LargeBlockMemoryPool(BlockSize, maxPooledBytes: 2 * BlockSize);
        var leases = new[] { pool.Rent(), pool.Rent(), pool.Rent() };
        var returned = new HashSet<byte[]>(ReferenceEqualityComparer.Instance);
        foreach (var lease in leases)
        {
            returned.Add(ArrayOf(lease));
            lease.Dispose();
        }

        var again = new[] { pool.Rent(), pool.Rent(), pool.Rent(), pool.Rent() };

        var reused = 0;
        foreach (var lease in again)
        {
            if (returned.Contains(ArrayOf(lease)))
            {
                reused++;
            }
        }

        Assert.Equal(2, reused);
    }

    [Theory]
    [InlineData(64 * 1024)]
    [InlineData(1024 * 1024)]
    public void Return_ManyBlocks_KeepsTheBudgetInBytesWhateverTheBlockSize(int blockSize)
    {
        // 2 MiB of budget: 32 blocks of 64 KiB, but only 2 of 1 MiB.
        using var pool = new LargeBlockMemoryPool(blockSize, maxPooledBytes: 2 * 1024 * 1024);
        var leases = Enumerable.Range(0, 40).Select(_ => pool.Rent()).ToList();
        var returned = new HashSet<byte[]>(leases.Select(ArrayOf), ReferenceEqualityComparer.Instance);
        leases.ForEach(lease => lease.Dispose());

        var again = Enumerable.Range(0, 40).Select(_ => pool.Rent()).ToList();

        Assert.Equal(2 * 1024 * 1024 / blockSize, again.Count(lease => returned.Contains(ArrayOf(lease))));
        again.ForEach(lease => lease.Dispose());
    }

    [Fact]
    public void Return_BudgetZero_NeverReuses()
    {
        using var pool = new LargeBlockMemoryPool(BlockSize, maxPooledBytes: 0);
        var lease = pool.Rent();
        var array = ArrayOf(lease);
        lease.Dispose();

        using var next = pool.Rent();

        Assert.NotSame(array, ArrayOf(next));
    }

    [Fact]
    public void Return_AfterPoolReusedBlocks_CountStaysBounded()
    {
        // Rent/return cycles must not drift the pooled count: after many cycles the pool still keeps two blocks.
        using var pool = new LargeBlockMemoryPool(BlockSize, maxPooledBytes: 2 * BlockSize);
        for (var i = 0; i < 100; i++)
        {
            var a = pool.Rent();
            var b = pool.Rent();
            a.Dispose();
            b.Dispose();
        }

        var x = pool.Rent();
        var y = pool.Rent();
        var arrays = new[] { ArrayOf(x), ArrayOf(y) };
        x.Dispose();
        y.Dispose();

        using var first = pool.Rent();
        using var second = pool.Rent();

        Assert.Contains(ArrayOf(first), arrays);
        Assert.Contains(ArrayOf(second), arrays);
        Assert.NotSame(ArrayOf(first), ArrayOf(second));
    }

    [Fact]
    public void Dispose_Pool_DropsPooledBlocks()
    {
        var pool = new LargeBlockMemoryPool(BlockSize, 4 * BlockSize);
        var lease = pool.Rent();
        var array = ArrayOf(lease);
        lease.Dispose();

        pool.Dispose();
        using var next = pool.Rent();

        Assert.NotSame(array, ArrayOf(next));
    }

    [Fact]
    public void Factory_Create_ReturnsPoolWithConfiguredBlockSize()
    {
        var factory = new LargeBlockMemoryPoolFactory(128 * 1024, 8 * 128 * 1024);

        using var pool = factory.Create();

        var large = Assert.IsType<LargeBlockMemoryPool>(pool);
        Assert.Equal(128 * 1024, large.BlockSize);
        Assert.Equal(128 * 1024, pool.MaxBufferSize);
    }

    [Fact]
    public void Rent_WithBulkBlocks_HandsThemOutFirstThenBlocksOfBlockSize()
    {
        using var pool = new LargeBlockMemoryPool(BlockSize, 4 * BlockSize, BulkSize, bulkBlocks: 2);

        var leases = Enumerable.Range(0, 4).Select(_ => pool.Rent(BlockSize)).ToList();

        Assert.Equal([BulkSize, BulkSize, BlockSize, BlockSize], leases.Select(lease => ArrayOf(lease).Length));
        Assert.Equal(BlockSize, pool.MaxBufferSize);
        leases.ForEach(lease => lease.Dispose());
    }

    [Fact]
    public void Return_BulkBlock_IsReusedAndNoMoreThanBulkBlocksEverExist()
    {
        using var pool = new LargeBlockMemoryPool(BlockSize, 4 * BlockSize, BulkSize, bulkBlocks: 2);
        var first = Enumerable.Range(0, 5).Select(_ => pool.Rent()).ToList();
        var bulk = new HashSet<byte[]>(first.Select(ArrayOf).Where(array => array.Length == BulkSize), ReferenceEqualityComparer.Instance);
        first.ForEach(lease => lease.Dispose());

        var again = Enumerable.Range(0, 5).Select(_ => pool.Rent()).ToList();
        var bulkAgain = again.Select(ArrayOf).Where(array => array.Length == BulkSize).ToList();

        Assert.Equal(2, bulkAgain.Count);
        Assert.All(bulkAgain, array => Assert.Contains(array, bulk));
        again.ForEach(lease => lease.Dispose());
    }

    [Fact]
    public void Return_BulkBlock_IsKeptWhateverTheBudgetOfTheOthers()
    {
        // The budget bounds the blocks of BlockSize only: bulk blocks are bounded by their count, and never let go.
        using var pool = new LargeBlockMemoryPool(BlockSize, maxPooledBytes: 0, BulkSize, bulkBlocks: 1);
        var lease = pool.Rent();
        var array = ArrayOf(lease);
        lease.Dispose();

        using var next = pool.Rent();

        Assert.Same(array, ArrayOf(next));
    }

    [Fact]
    public void Rent_ManyThreadsWithBulkBlocks_EveryLeaseHasItsOwnArrayAndTheCountHolds()
    {
        using var pool = new LargeBlockMemoryPool(BlockSize, 4 * BlockSize, BulkSize, bulkBlocks: 3);
        var outstanding = new System.Collections.Concurrent.ConcurrentDictionary<byte[], bool>(ReferenceEqualityComparer.Instance);
        var bulkSeen = new System.Collections.Concurrent.ConcurrentDictionary<byte[], bool>(ReferenceEqualityComparer.Instance);

        Parallel.For(0, 8, _ =>
        {
            for (var i = 0; i < 2000; i++)
            {
                using var lease = pool.Rent();
                var array = ArrayOf(lease);
                Assert.True(outstanding.TryAdd(array, true), "two leases share one array");
                if (array.Length == BulkSize)
                {
                    bulkSeen.TryAdd(array, true);
                }

                outstanding.TryRemove(array, out var _);
            }
        });

        Assert.InRange(bulkSeen.Count, 1, 3);
    }

    [Theory]
    [InlineData(BlockSize)]
    [InlineData(BlockSize - 1)]
    public void Constructor_BulkBlocksNoLargerThanBlockSize_Throws(int bulkBlockSize)
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new LargeBlockMemoryPool(BlockSize, 4 * BlockSize, bulkBlockSize, bulkBlocks: 1));
    }

    [Fact]
    public void Constructor_NoBulkBlocks_HasNone()
    {
        using var pool = new LargeBlockMemoryPool(BlockSize, 4 * BlockSize, BulkSize, bulkBlocks: 0);
        using var lease = pool.Rent();

        Assert.Equal(0, pool.BulkBlockSize);
        Assert.Equal(BlockSize, ArrayOf(lease).Length);
    }

    [Fact]
    public void Factory_Create_PassesTheBulkBlocksOn()
    {
        var factory = new LargeBlockMemoryPoolFactory(BlockSize, 4 * BlockSize, BulkSize, bulkBlocks: 5);

        using var pool = Assert.IsType<LargeBlockMemoryPool>(factory.Create());

        Assert.Equal(BulkSize, pool.BulkBlockSize);
        Assert.Equal(5, pool.BulkBlocks);
    }
}
