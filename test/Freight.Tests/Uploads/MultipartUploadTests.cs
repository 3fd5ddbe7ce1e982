using System.IO.Hashing;
using System.IO.Pipelines;
using System.Text;
using Freight.Hashing;
using Freight.Multipart;
using Freight.Lab.Payload;
using Freight.Storage;
using Freight.Lab.Uploads;

namespace Freight.Tests.Uploads;

public sealed class MultipartUploadTests : IDisposable
{
    private const string Boundary = "----FreightUploadBoundary0123456789";
    private const string EmptyHash = "99aa06d3014798d86001c324468d497f";

    private readonly TempDirectory _dir = new();
    private readonly FileSystemObjectStore _store;

    public MultipartUploadTests()
    {
        _store = new FileSystemObjectStore(new FileSystemStoreOptions { RootDirectory = _dir.Path });
    }

    public void Dispose() => _dir.Dispose();

    private static string Hash(byte[] data) => HashHex.ToHex(XxHash128.HashToUInt128(data));

    /// <summary>A file whose content contains near-delimiters: CRLF, "--", and a boundary prefix.</summary>
    private static byte[] TrickyFile(int length)
    {
        var file = DeterministicPayload.Create(length);
        var decoy = Encoding.ASCII.GetBytes("\r\n--" + Boundary[..^1]);
        foreach (var at in new[] { 0, length / 3, length / 2, length - decoy.Length })
        {
            decoy.CopyTo(file, at);
        }

        return file;
    }

    /// <summary>RFC 7578 body: a text field, then the file part, then the close delimiter and an epilogue.</summary>
    private static byte[] Body(byte[] file)
    {
        using var body = new MemoryStream();
        void Write(string text) => body.Write(Encoding.ASCII.GetBytes(text));
        Write("preamble to ignore\r\n");
        Write($"--{Boundary}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nQuarterly report");
        Write($"\r\n--{Boundary}\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"data.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n");
        body.Write(file);
        Write($"\r\n--{Boundary}--\r\nepilogue");
        return body.ToArray();
    }

    /// <summary>The server's loop: fields as strings, the file section streamed into <paramref name="writer"/>.</summary>
    private static async Task<(string? Title, UploadResult? File)> ReceiveAsync(byte[] body, int pieceSize, IObjectWriter? writer)
    {
        var pipe = new Pipe();
        var produce = Task.Run(async () =>
        {
            for (var offset = 0; offset < body.Length; offset += pieceSize)
            {
                await pipe.Writer.WriteAsync(body.AsMemory(offset, Math.Min(pieceSize, body.Length - offset)));
            }

            await pipe.Writer.CompleteAsync();
        });

        var reader = new MultipartPipeReader(pipe.Reader, Boundary);
        string? title = null;
        UploadResult? file = null;
        MultipartSection? section;
        while ((section = await reader.ReadNextSectionAsync()) is not null)
        {
            if (section.FileName is null)
            {
                Assert.Equal("title", section.Name);
                title = await reader.ReadSectionAsStringAsync(1024);
            }
            else
            {
                Assert.Equal("upload", section.Name);
                Assert.Equal("data.bin", section.FileName);
                file = await MultipartUpload.CopySectionAsync(reader, writer);
            }
        }

        await produce;
        return (title, file);
    }

    [Theory]
    [InlineData(1, 1)]
    [InlineData(100, 1)]
    [InlineData(100, 7)]
    [InlineData(70_000, 4096)]
    [InlineData(1024 * 1024 + 3, 65_536)]
    [InlineData(1024 * 1024 + 3, 1024 * 1024 * 2)]
    public async Task CopySection_FieldThenFile_StoresFileExactBytesAndHash(int fileLength, int pieceSize)
    {
        var file = fileLength < 64 ? DeterministicPayload.Create(fileLength) : TrickyFile(fileLength);
        var body = Body(file);

        (string? Title, UploadResult? File) received;
        await using (var writer = await _store.BeginWriteAsync("uploads/data.bin", body.Length))
        {
            received = await ReceiveAsync(body, pieceSize, writer);
            Assert.Equal(fileLength, writer.Length);
            await writer.CommitAsync();
        }

        Assert.Equal("Quarterly report", received.Title);
        Assert.NotNull(received.File);
        Assert.Equal(fileLength, received.File.Bytes);
        Assert.Equal(Hash(file), received.File.Hash);
        Assert.Equal(file, await File.ReadAllBytesAsync(_store.GetPath("uploads/data.bin")));
    }

    [Fact]
    public async Task CopySection_NullWriter_OnlyHashes()
    {
        var file = TrickyFile(300_000);

        var received = await ReceiveAsync(Body(file), 8192, writer: null);

        Assert.NotNull(received.File);
        Assert.Equal(file.Length, received.File.Bytes);
        Assert.Equal(Hash(file), received.File.Hash);
        Assert.Empty(_dir.RelativeFiles());
    }

    [Fact]
    public async Task CopySection_EmptyFile_ZeroBytesAndEmptyHash()
    {
        UploadResult? result;
        await using (var writer = await _store.BeginWriteAsync("empty.bin"))
        {
            result = (await ReceiveAsync(Body([]), 5, writer)).File;
            await writer.CommitAsync();
        }

        Assert.NotNull(result);
        Assert.Equal(0, result.Bytes);
        Assert.Equal(EmptyHash, result.Hash);
        Assert.Empty(await File.ReadAllBytesAsync(_store.GetPath("empty.bin")));
    }

    [Fact]
    public async Task CopySection_BodyEndsInsideFile_ThrowsAndLeavesNoFile()
    {
        var body = Body(TrickyFile(100_000));
        var truncated = body.AsSpan(0, body.Length - 5000).ToArray();

        await using (var writer = await _store.BeginWriteAsync("cut.bin"))
        {
            await Assert.ThrowsAsync<MultipartFormatException>(() => ReceiveAsync(truncated, 4096, writer));
        }

        Assert.Empty(_dir.RelativeFiles());
    }
}
