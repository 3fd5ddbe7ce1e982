using Freight.Lab.Payload;
using Freight.Storage;
using Microsoft.Win32.SafeHandles;

namespace Freight.Tests.Storage;

/// <summary>
/// <see cref="ObjectReaderStream"/>, the default <see cref="IObjectReader.OpenRangeAsync"/>, over a
/// <see cref="MemoryObjectStore"/> reader: exactly the range's bytes, never a read past it, and an
/// <see cref="EndOfStreamException"/> when the object ends first.
/// </summary>
public sealed class ObjectReaderStreamTests
{
    private const int ObjectLength = 10_000;

    private readonly byte[] _content = DeterministicPayload.Create(ObjectLength);

    private async Task<IObjectReader> OpenAsync()
    {
        var store = new MemoryObjectStore();
        await using (var writer = await store.BeginWriteAsync("object.bin"))
        {
            await writer.WriteAsync(_content.AsMemory());
            await writer.CommitAsync();
        }

        var reader = await store.OpenReadAsync("object.bin");
        Assert.NotNull(reader);
        return reader;
    }

    private static async Task<byte[]> ReadToEndAsync(Stream stream)
    {
        using var copy = new MemoryStream();
        await stream.CopyToAsync(copy);
        return copy.ToArray();
    }

    [Theory]
    [InlineData(0, ObjectLength)]
    [InlineData(1234, 5000)]
    [InlineData(ObjectLength - 1, 1)]
    public async Task OpenRangeAsync_RangeInsideObject_ExactlyThoseBytes(int offset, int length)
    {
        await using var reader = await OpenAsync();

        await using var stream = await reader.OpenRangeAsync(offset, length);

        Assert.IsType<ObjectReaderStream>(stream);
        Assert.Equal(_content[offset..(offset + length)], await ReadToEndAsync(stream));
        Assert.Equal(0, await stream.ReadAsync(new byte[16]));
    }

    [Fact]
    public async Task ReadAsync_ZeroLengthRange_EndsAtOnceWithoutReading()
    {
        var recording = new RecordingReader(await OpenAsync());
        await using var stream = new ObjectReaderStream(recording, 500, 0);

        Assert.Equal(0, await stream.ReadAsync(new byte[16]));
        Assert.Empty(recording.Reads);
    }

    [Fact]
    public async Task ReadAsync_BufferLargerThanRange_ReadsOnlyTheRange()
    {
        var recording = new RecordingReader(await OpenAsync());
        await using var stream = new ObjectReaderStream(recording, 100, 50);
        var buffer = new byte[4096];
        Array.Fill(buffer, (byte)0xEE);

        var read = await stream.ReadAsync(buffer);

        Assert.Equal(50, read);
        Assert.Equal(_content[100..150], buffer[..50]);
        Assert.All(buffer[50..], b => Assert.Equal(0xEE, b));
        Assert.Equal(0, await stream.ReadAsync(buffer));

        // The reader itself was never asked for a byte past the range.
        Assert.Equal([(100L, 50)], recording.Reads);
    }

    [Fact]
    public async Task ReadAsync_ManySmallReads_AdvanceThroughTheRange()
    {
        await using var reader = await OpenAsync();
        await using var stream = new ObjectReaderStream(reader, 3000, 1000);
        var buffer = new byte[7];
        using var copy = new MemoryStream();

        int read;
        while ((read = await stream.ReadAsync(buffer)) > 0)
        {
            copy.Write(buffer, 0, read);
        }

        Assert.Equal(_content[3000..4000], copy.ToArray());
        Assert.Equal(1000, stream.Position);
    }

    [Fact]
    public async Task ReadAsync_RangePastEndOfObject_EndOfStreamAfterTheBytesThereAre()
    {
        await using var reader = await OpenAsync();
        await using var stream = new ObjectReaderStream(reader, ObjectLength - 10, 20);
        var buffer = new byte[64];

        var read = await stream.ReadAsync(buffer);

        Assert.Equal(10, read);
        Assert.Equal(_content[(ObjectLength - 10)..], buffer[..10]);
        var ended = await Assert.ThrowsAsync<EndOfStreamException>(() => stream.ReadAsync(buffer).AsTask());
        Assert.Contains("object.bin", ended.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ReadAsync_RangeStartingPastEndOfObject_EndOfStream()
    {
        await using var reader = await OpenAsync();
        await using var stream = new ObjectReaderStream(reader, ObjectLength + 5, 1);

        await Assert.ThrowsAsync<EndOfStreamException>(() => stream.ReadAsync(new byte[8]).AsTask());
    }

    [Fact]
    public async Task Read_Synchronous_NotSupported()
    {
        await using var reader = await OpenAsync();
        await using var stream = new ObjectReaderStream(reader, 0, 10);

        Assert.Throws<NotSupportedException>(() => stream.Read(new byte[10], 0, 10));
    }

    [Fact]
    public async Task Constructor_NegativeOffsetOrLength_Throws()
    {
        await using var reader = await OpenAsync();

        Assert.Throws<ArgumentOutOfRangeException>(() => new ObjectReaderStream(reader, -1, 10));
        Assert.Throws<ArgumentOutOfRangeException>(() => new ObjectReaderStream(reader, 0, -1));
    }

    /// <summary>Passes reads through to a real reader and records each one's offset and size.</summary>
    private sealed class RecordingReader(IObjectReader inner) : IObjectReader
    {
        public List<(long Offset, int Length)> Reads { get; } = [];

        public ObjectInfo Info => inner.Info;

        public SafeFileHandle? FileHandle => null;

        public ReadOnlyMemory<byte>? Content => null;

        public ValueTask<int> ReadAsync(long offset, Memory<byte> destination, CancellationToken cancellationToken = default)
        {
            Reads.Add((offset, destination.Length));
            return inner.ReadAsync(offset, destination, cancellationToken);
        }

        public ValueTask DisposeAsync() => inner.DisposeAsync();
    }
}
