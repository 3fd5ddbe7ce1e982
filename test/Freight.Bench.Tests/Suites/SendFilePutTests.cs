using System.IO.Hashing;
using System.Text;
using Freight.Bench.Load;
using Freight.Bench.Suites.Files;
using Freight.Lab.Payload;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;

namespace Freight.Bench.Tests.Suites;

/// <summary>
/// The files suite's sendfile client against a real Kestrel on 127.0.0.1:0 whose PUT hashes what arrives: the file's
/// bytes arrive exactly, after the request head, and the answer's status and ETag come back. (The suite's rows against
/// freight serve and nginx run in BenchQuickRunTests.)
/// </summary>
public sealed class SendFilePutTests : IAsyncLifetime
{
    private WebApplication? _app;
    private Uri _address = null!;
    private readonly string _directory = Directory.CreateTempSubdirectory("freight-sendfile-put-").FullName;

    public async Task InitializeAsync()
    {
        _app = LoopbackApp.Create();
        _app.MapPut("/files/{name}", async (HttpContext context) =>
        {
            var hash = new XxHash128();
            var buffer = new byte[64 * 1024];
            long length = 0;
            int read;
            while ((read = await context.Request.Body.ReadAsync(buffer)) > 0)
            {
                hash.Append(buffer.AsSpan(0, read));
                length += read;
            }

            context.Response.StatusCode = StatusCodes.Status201Created;
            context.Response.Headers.ETag = $"\"{Convert.ToHexStringLower(hash.GetCurrentHash())}-{length}\"";
            context.Response.Headers.ContentType = context.Request.ContentType;
        });
        await _app.StartAsync();
        _address = LoopbackApp.AddressOf(_app);
    }

    public async Task DisposeAsync()
    {
        if (_app is not null)
        {
            await _app.DisposeAsync();
        }

        Directory.Delete(_directory, recursive: true);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(3 * 1024 * 1024 + 7)]
    public async Task PutAsync_File_ArrivesByteForByteAndTheAnswerComesBack(int length)
    {
        var path = Path.Combine(_directory, $"payload-{length}.bin");
        DeterministicPayload.WriteFile(path, length);
        var expected = $"\"{Convert.ToHexStringLower(XxHash128.Hash(DeterministicPayload.Create(length)))}-{length}\"";

        var answer = await SendFilePut.PutAsync(new Uri(_address, "/files/a.bin"), path, length, CancellationToken.None);

        Assert.Equal(201, answer.StatusCode);
        Assert.Equal(expected, answer.ETag);
        Assert.True(answer.Seconds > 0);
    }

    [Fact]
    public void Parse_AnswerWithoutAnEnd_IsAVerificationFailure()
    {
        var failure = Assert.Throws<VerificationException>(() => SendFilePut.Parse("HTTP/1.1 201 Created\r\nETag: \"x\"\r\n"u8, 1, _address));

        Assert.Contains("no complete answer", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Parse_StatusLineThatIsNotHttp_IsAVerificationFailure()
    {
        Assert.Throws<VerificationException>(() => SendFilePut.Parse("SSH-2.0-OpenSSH\r\n\r\n"u8, 1, _address));
    }

    [Fact]
    public void Parse_HeadersInAnyCase_FindsTheETag()
    {
        var answer = SendFilePut.Parse(Encoding.ASCII.GetBytes("HTTP/1.1 204 No Content\r\nServer: nginx\r\netag:  \"abc\" \r\n\r\n"), 2.5, _address);

        Assert.Equal(new SendFilePut.Answer(204, "\"abc\"", 2.5), answer);
    }
}
