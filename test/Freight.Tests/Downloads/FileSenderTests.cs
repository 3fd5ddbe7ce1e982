using System.Buffers;
using System.IO.Pipelines;
using Freight.Downloads;
using Freight.Lab.Payload;
using Microsoft.Win32.SafeHandles;

namespace Freight.Tests.Downloads;

public sealed class FileSenderTests : IDisposable
{
    // About 3 MiB, not a multiple of any chunk size, so the last read is a short one.
    private const int FileLength = 3 * 1024 * 1024 + 7;

    private readonly TempDirectory _dir = new();
    private readonly string _path;
    private readonly byte[] _content;

    public FileSenderTests()
    {
        _path = _dir.Combine("file.bin");
        DeterministicPayload.WriteFile(_path, FileLength);
        _content = DeterministicPayload.Create(FileLength);
    }

    public void Dispose() => _dir.Dispose();

    /// <summary>Drains <paramref name="reader"/> to its end, as a response body reader would.</summary>
    private static Task<byte[]> DrainAsync(PipeReader reader) =>
        Task.Run(async () =>
        {
            var received = new ArrayBufferWriter<byte>();
            while (true)
            {
                var result = await reader.ReadAsync();
                foreach (var segment in result.Buffer)
                {
                    received.Write(segment.Span);
                }

                reader.AdvanceTo(result.Buffer.End);
                if (result.IsCompleted)
                {
                    break;
                }
            }

            await reader.CompleteAsync();
            return received.WrittenSpan.ToArray();
        });

    private async Task<byte[]> SendAsync(long offset, long count)
    {
        var pipe = new Pipe();
        var drain = DrainAsync(pipe.Reader);
        using (var file = File.OpenHandle(_path))
        {
            await FileSender.SendAsync(pipe.Writer, file, offset, count);
        }

        await pipe.Writer.CompleteAsync();
        return await drain;
    }

    public static TheoryData<long, long> Ranges()
    {
        long[] points = [0, 1, 64 * 1024 - 1, 1024 * 1024 + 5];
        var data = new TheoryData<long, long>();
        foreach (var offset in points)
        {
            foreach (var count in points)
            {
                data.Add(offset, count);
            }

            // To the end of the file.
            data.Add(offset, FileLength - offset);
        }

        return data;
    }

    [Fact]
    public async Task Send_WholeFile_SendsEveryByte()
    {
        var received = await SendAsync(0, FileLength);

        Assert.Equal(_content, received);
    }

    [Theory]
    [MemberData(nameof(Ranges))]
    public async Task Send_Range_SendsExactlyThatSlice(long offset, long count)
    {
        var received = await SendAsync(offset, count);

        Assert.Equal(_content.AsSpan((int)offset, (int)count).ToArray(), received);
    }

    [Fact]
    public async Task Send_LastByte_SendsIt()
    {
        var received = await SendAsync(FileLength - 1, 1);

        Assert.Equal([_content[^1]], received);
    }

    [Theory]
    [InlineData(FileLength - 10L, 11L)]
    [InlineData(FileLength - 10L, 2L * 1024 * 1024)]
    [InlineData(0L, FileLength + 1L)]
    public async Task Send_RangePastEndOfFile_ThrowsEndOfStreamAfterSendingWhatExists(long offset, long count)
    {
        var pipe = new Pipe();
        var drain = DrainAsync(pipe.Reader);
        using (var file = File.OpenHandle(_path))
        {
            await Assert.ThrowsAsync<EndOfStreamException>(() => FileSender.SendAsync(pipe.Writer, file, offset, count));
        }

        await pipe.Writer.CompleteAsync();
        Assert.Equal(_content.AsSpan((int)offset).ToArray(), await drain);
    }

    [Theory]
    [InlineData(FileLength)]
    [InlineData(FileLength + 100L)]
    public async Task Send_OffsetAtOrPastEnd_ThrowsEndOfStream(long offset)
    {
        var pipe = new Pipe();
        var drain = DrainAsync(pipe.Reader);
        using (var file = File.OpenHandle(_path))
        {
            await Assert.ThrowsAsync<EndOfStreamException>(() => FileSender.SendAsync(pipe.Writer, file, offset, 1));
        }

        await pipe.Writer.CompleteAsync();
        Assert.Empty(await drain);
    }

    [Fact]
    public async Task Send_ReaderCompletesEarly_StopsWithoutError()
    {
        // The client went away: the response reader is completed after the first read.
        var pipe = new Pipe();
        var firstRead = Task.Run(async () =>
        {
            var result = await pipe.Reader.ReadAsync();
            var length = result.Buffer.Length;
            pipe.Reader.AdvanceTo(result.Buffer.End);
            await pipe.Reader.CompleteAsync();
            return length;
        });

        using (var file = File.OpenHandle(_path))
        {
            await FileSender.SendAsync(pipe.Writer, file, 0, FileLength);
        }

        Assert.InRange(await firstRead, 1, FileLength);
    }

    [Fact]
    public async Task Send_NullArguments_Throw()
    {
        using var file = File.OpenHandle(_path);

        await Assert.ThrowsAsync<ArgumentNullException>(() => FileSender.SendAsync(null!, file, 0, 1));
        await Assert.ThrowsAsync<ArgumentNullException>(() => FileSender.SendAsync(new Pipe().Writer, (SafeFileHandle)null!, 0, 1));
    }
}
