using System.Buffers;
using System.Diagnostics.Metrics;
using System.IO.Hashing;
using System.IO.Pipelines;
using System.Security.Cryptography;
using Freight.Digests;
using Freight.Lab.Payload;
using Freight.Telemetry;
using Freight.Uploads;

namespace Freight.Tests.Uploads;

public sealed class UploadPipelineTests
{
    /// <summary>Keeps what it is given, or fails every write with an IOException, as a full disk would.</summary>
    private sealed class RecordingSink(bool fail = false) : IUploadSink
    {
        public MemoryStream Received { get; } = new();

        public ValueTask WriteAsync(ReadOnlySequence<byte> data, CancellationToken cancellationToken)
        {
            if (fail)
            {
                throw new IOException("No space left on device.");
            }

            foreach (var segment in data)
            {
                Received.Write(segment.Span);
            }

            return ValueTask.CompletedTask;
        }
    }

    /// <summary>A pipe already holding <paramref name="body"/> in pieces of <paramref name="pieceSize"/>, its writer completed.</summary>
    private static async Task<Pipe> FilledPipeAsync(byte[] body, int pieceSize)
    {
        var pipe = new Pipe(new PipeOptions(pauseWriterThreshold: 0));
        for (var offset = 0; offset < body.Length; offset += pieceSize)
        {
            await pipe.Writer.WriteAsync(body.AsMemory(offset, Math.Min(pieceSize, body.Length - offset)));
        }

        await pipe.Writer.CompleteAsync();
        return pipe;
    }

    [Theory]
    [InlineData(0, 1)]
    [InlineData(1, 1)]
    [InlineData(70_000, 4096)]
    [InlineData(UploadBatch.Bytes * 3 + 5, 65_536)]
    public async Task CopyAsync_BodyInPieces_WritesExactBytesAndReturnsLength(int length, int pieceSize)
    {
        var body = DeterministicPayload.Create(length);
        var pipe = await FilledPipeAsync(body, pieceSize);
        var sink = new RecordingSink();
        using var digests = new StreamingDigests();

        var copied = await UploadPipeline.CopyAsync(new PipeBodySource(pipe.Reader, UploadBatch.Bytes), sink, digests, maxBytes: length, protocol: null, CancellationToken.None);

        Assert.Equal(length, copied);
        Assert.Equal(body, sink.Received.ToArray());
        Assert.Equal(XxHash128.HashToUInt128(body), digests.Complete().ContentHash);
    }

    [Fact]
    public async Task CopyAsync_BodyOneBytePastLimit_ThrowsTooLargeAndWritesNothingPastLimit()
    {
        var body = DeterministicPayload.Create(100_001);
        var pipe = await FilledPipeAsync(body, 4096);
        var sink = new RecordingSink();

        var thrown = await Assert.ThrowsAsync<UploadTooLargeException>(() =>
            UploadPipeline.CopyAsync(new PipeBodySource(pipe.Reader, 4096), sink, digests: null, maxBytes: 100_000, protocol: null, CancellationToken.None).AsTask());

        Assert.Equal(100_000, thrown.MaxBytes);
        Assert.True(sink.Received.Length <= 100_000, $"{sink.Received.Length} bytes were written past the limit.");
        Assert.Equal(body.AsSpan(0, (int)sink.Received.Length).ToArray(), sink.Received.ToArray());
    }

    [Fact]
    public async Task CopyAsync_WithSha256_DigestsVerifyTheBodyAndReportAWrongOne()
    {
        var body = DeterministicPayload.Create(300_000);
        var pipe = await FilledPipeAsync(body, 7_000);
        using var digests = new StreamingDigests([DigestAlgorithm.Sha256]);

        await UploadPipeline.CopyAsync(new PipeBodySource(pipe.Reader, UploadBatch.Bytes), new RecordingSink(), digests, long.MaxValue, protocol: null, CancellationToken.None);
        var computed = digests.Complete();

        var wrong = SHA256.HashData(body);
        wrong[0] ^= 1;
        Assert.Empty(computed.Verify(new Dictionary<string, byte[]> { ["sha-256"] = SHA256.HashData(body) }));
        var mismatch = Assert.Single(computed.Verify(new Dictionary<string, byte[]> { ["sha-256"] = wrong }));
        Assert.Equal(DigestAlgorithm.Sha256, mismatch.Algorithm);
    }

    [Fact]
    public async Task CopyAsync_TokenCanceledWhileWaiting_ThrowsCanceledAfterWritingWhatArrived()
    {
        var pipe = new Pipe();
        var first = DeterministicPayload.Create(1000);
        await pipe.Writer.WriteAsync(first);
        var sink = new RecordingSink();
        using var cancel = new CancellationTokenSource();

        var copy = UploadPipeline.CopyAsync(new PipeBodySource(pipe.Reader, 1000), sink, digests: null, long.MaxValue, protocol: null, cancel.Token).AsTask();
        // The first 1000 bytes were there already: written before the copy waits for more.
        Assert.Equal(first, sink.Received.ToArray());
        await cancel.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => copy);
        Assert.Equal(first, sink.Received.ToArray());
    }

    [Fact]
    public async Task CopyAsync_PendingReadCanceled_ThrowsCanceledAndLeavesReaderUsable()
    {
        var pipe = new Pipe();
        var copy = UploadPipeline.CopyAsync(new PipeBodySource(pipe.Reader, 1000), new RecordingSink(), digests: null, long.MaxValue, protocol: null, CancellationToken.None).AsTask();

        pipe.Reader.CancelPendingRead();

        await Assert.ThrowsAsync<OperationCanceledException>(() => copy);
        Assert.False(pipe.Reader.TryRead(out _));
    }

    [Fact]
    public async Task CopyAsync_ReadCanceledNotForTheStop_ReadsPastItAndCopiesAll()
    {
        // Kestrel cancels its input's pending read for its own ends (a graceful stop, its rate checks).
        var pipe = new Pipe();
        var sink = new RecordingSink();
        var body = DeterministicPayload.Create(3000);
        var copy = UploadPipeline.CopyAsync(new PipeBodySource(new UploadBodyReader(pipe.Reader, new UploadStop()), 2000), sink, digests: null, long.MaxValue, protocol: null, CancellationToken.None).AsTask();
        await pipe.Writer.WriteAsync(body.AsMemory(0, 1000));

        pipe.Reader.CancelPendingRead();
        await pipe.Writer.WriteAsync(body.AsMemory(1000));
        await pipe.Writer.CompleteAsync();

        Assert.Equal(3000, await copy);
        Assert.Equal(body, sink.Received.ToArray());
    }

    [Fact]
    public async Task CopyAsync_ReadCanceledForTheStop_ThrowsCanceled()
    {
        var pipe = new Pipe();
        var stop = new UploadStop();
        var copy = UploadPipeline.CopyAsync(new PipeBodySource(new UploadBodyReader(pipe.Reader, stop), 1000), new RecordingSink(), digests: null, long.MaxValue, protocol: null, CancellationToken.None).AsTask();

        stop.Request();
        pipe.Reader.CancelPendingRead();

        await Assert.ThrowsAsync<OperationCanceledException>(() => copy);
    }

    [Fact]
    public async Task CopyAsync_ReadCanceledByItsOwnReader_ThrowsCanceled()
    {
        // A cancel asked of the upload's reader itself is the app's: it ends the upload, stop or no stop.
        var pipe = new Pipe();
        var body = new UploadBodyReader(pipe.Reader, new UploadStop());
        var copy = UploadPipeline.CopyAsync(new PipeBodySource(body, 1000), new RecordingSink(), digests: null, long.MaxValue, protocol: null, CancellationToken.None).AsTask();

        body.CancelPendingRead();

        await Assert.ThrowsAsync<OperationCanceledException>(() => copy);
    }

    [Fact]
    public async Task CopyAsync_SinkFails_ThrowsItsErrorAndLeavesSourceAdvanced()
    {
        var body = DeterministicPayload.Create(10_000);
        var pipe = await FilledPipeAsync(body, 10_000);
        using var digests = new StreamingDigests();

        await Assert.ThrowsAsync<IOException>(() =>
            UploadPipeline.CopyAsync(new PipeBodySource(pipe.Reader, 1000), new RecordingSink(fail: true), digests, long.MaxValue, protocol: null, CancellationToken.None).AsTask());

        // A read still open would make TryRead throw ("Reading is already in progress"); the failed chunk was
        // handed back as consumed, so nothing of it is left to read, and the digests never saw it.
        Assert.True(pipe.Reader.TryRead(out var rest));
        Assert.True(rest.Buffer.IsEmpty);
        Assert.True(rest.IsCompleted);
        Assert.Equal(0, digests.Length);
    }

    [Fact]
    public async Task CopyAsync_WithProtocolTag_CountsEveryByteReadUnderItAlsoTheRefusedChunk()
    {
        // A tag value of this test's own, so uploads counted by other tests running meanwhile are not summed.
        var protocol = new KeyValuePair<string, object?>(FreightTelemetry.ProtocolTag, "test-" + Guid.NewGuid());
        long counted = 0;
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == FreightTelemetry.Name && instrument.Name == "freight.upload.bytes")
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((_, value, tags, _) =>
        {
            foreach (var tag in tags)
            {
                if (tag.Key == protocol.Key && Equals(tag.Value, protocol.Value))
                {
                    Interlocked.Add(ref counted, value);
                }
            }
        });
        listener.Start();
        var pipe = await FilledPipeAsync(DeterministicPayload.Create(3000), 1000);

        await Assert.ThrowsAsync<UploadTooLargeException>(() =>
            UploadPipeline.CopyAsync(new PipeBodySource(pipe.Reader, 1000), new RecordingSink(), digests: null, maxBytes: 2500, protocol, CancellationToken.None).AsTask());

        Assert.Equal(3000, Interlocked.Read(ref counted));
    }
}
