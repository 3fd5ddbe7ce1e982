using System.IO.Pipelines;
using System.Text;
using Freight.Multipart;
using Freight.Uploads;

namespace Freight.Tests.Uploads;

/// <summary>
/// An upload's body read on through the host's stop: Kestrel's own cancels of its input's pending read are read past by
/// every reader over it, the multipart parser's included, and only the stop's cut ends a read canceled.
/// </summary>
public sealed class UploadBodyReaderTests
{
    [Fact]
    public async Task MultipartPipeReader_ReadCanceledNotForTheStop_ReadsPastItAndParsesAll()
    {
        var pipe = new Pipe();
        var reader = new MultipartPipeReader(new UploadBodyReader(pipe.Reader, new UploadStop()), "b");
        await pipe.Writer.WriteAsync(Encoding.ASCII.GetBytes("--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"f.bin\"\r\n\r\nfile bytes\r\n-"));
        Assert.Equal("f.bin", (await reader.ReadNextSectionAsync())!.FileName);
        var data = await reader.ReadSectionDataAsync();
        Assert.Equal("file bytes", Encoding.ASCII.GetString(data.Data));

        // The parser holds back "\r\n-", which may begin the delimiter: its next read waits having examined past what it
        // consumed, the read Kestrel does not hide its own cancel from (dotnet/aspnetcore#19476).
        var next = reader.ReadSectionDataAsync().AsTask();
        pipe.Reader.CancelPendingRead();
        await pipe.Writer.WriteAsync(Encoding.ASCII.GetBytes("-b--\r\n"));
        await pipe.Writer.CompleteAsync();

        var last = await next;
        Assert.True(last.IsCompleted);
        Assert.True(last.Data.IsEmpty);
        Assert.Null(await reader.ReadNextSectionAsync());
    }

    [Fact]
    public async Task MultipartPipeReader_ReadCanceledForTheStop_ThrowsCanceled()
    {
        var pipe = new Pipe();
        var stop = new UploadStop();
        var reader = new MultipartPipeReader(new UploadBodyReader(pipe.Reader, stop), "b");
        await pipe.Writer.WriteAsync(Encoding.ASCII.GetBytes("--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"f.bin\"\r\n\r\nfile bytes\r\n-"));
        await reader.ReadNextSectionAsync();
        await reader.ReadSectionDataAsync();
        var next = reader.ReadSectionDataAsync().AsTask();

        stop.Request();
        pipe.Reader.CancelPendingRead();

        await Assert.ThrowsAsync<OperationCanceledException>(() => next);
    }
}
