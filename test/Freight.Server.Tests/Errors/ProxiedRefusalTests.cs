using System.Globalization;
using System.Net;
using Freight.Bench.Peers;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Errors;

/// <summary>
/// A refusal through nginx streaming the body upstream (<c>proxy_request_buffering off</c>), as deploy/nginx/freight.conf
/// has a deployment in front of serve do: the client reads serve's problem, not nginx's 502. Serve closed the connection with the body unread,
/// the reset failed nginx's write of the body ("writev() failed (32: Broken pipe) while sending request to upstream"),
/// and nginx answered 502 for most PUTs over the limit. Fails, never skips, when nginx is missing, as the bench's peer
/// tests do: <c>./test.sh</c> installs it (scripts/install-peers.sh).
/// </summary>
public sealed class ProxiedRefusalTests(OneMiBLimitServer server) : IClassFixture<OneMiBLimitServer>, IAsyncLifetime
{
    private const int Attempts = 10;

    /// <summary>300 MB, as the report's PUT: far more than nginx and the kernels hold in flight when the answer comes.</summary>
    private const long BodyBytes = 300L * 1000 * 1000;

    private readonly string _directory = Directory.CreateTempSubdirectory("freight-proxied-refusal-").FullName;

    private NginxServer? _nginx;

    private Uri? _address;

    [Fact]
    public async Task Put_OverLimitThroughNginx_ClientReads413Problem()
    {
        var statuses = await SendThroughNginxAsync(attempt => RawHttpConnection.Head("PUT", _address!, $"/files/proxied/{attempt}.bin",
            "Content-Length: " + BodyBytes.ToString(CultureInfo.InvariantCulture)), chunked: false);

        Assert.True(statuses.All(status => status == (int)HttpStatusCode.RequestEntityTooLarge), $"through nginx: {string.Join(' ', statuses)}; nginx's log: {await File.ReadAllTextAsync(_nginx!.ErrorLogPath)}");
        Assert.Empty(server.TempFiles());
        Assert.False(Directory.Exists(Path.Combine(server.DataDirectory, "files", "proxied")));
        await server.AssertServingAsync();
    }

    /// <summary>
    /// A chunked body (curl -T - sends one) over the limit to a lab upload, which meets the limit mid-body: nginx passes
    /// it on chunked, and serve's count of the limit lets the rest be read off after the 413. Counted by Kestrel, the
    /// body could not be read on and serve reset the connection, as above.
    /// </summary>
    [Fact]
    public async Task Post_ChunkedOverLimitThroughNginx_ClientReads413Problem()
    {
        var statuses = await SendThroughNginxAsync(_ => RawHttpConnection.Head("POST", _address!, "/lab/upload/freight?sink=file",
            "Content-Type: application/octet-stream", "Transfer-Encoding: chunked"), chunked: true);

        Assert.True(statuses.All(status => status == (int)HttpStatusCode.RequestEntityTooLarge), $"through nginx: {string.Join(' ', statuses)}; nginx's log: {await File.ReadAllTextAsync(_nginx!.ErrorLogPath)}");
        Assert.Empty(server.UploadedFiles());
        await server.AssertServingAsync();
    }

    /// <summary>
    /// <see cref="Attempts"/> requests through nginx, each head from <paramref name="head"/> and a body of
    /// <see cref="BodyBytes"/>: as curl -T does, the body is sent while the answer is read, and no more of it once the
    /// answer is in. Returns each answer's status; a 413's body must be the problem.
    /// </summary>
    private async Task<List<int>> SendThroughNginxAsync(Func<int, byte[]> head, bool chunked)
    {
        _nginx = await ShippedNginxProxy.StartAsync(Path.Combine(_directory, "work"), server.HttpAddress);
        Assert.True(_nginx is not null, ShippedNginxProxy.Missing);
        _address = _nginx.BaseAddress;

        var statuses = new List<int>();
        for (var attempt = 0; attempt < Attempts; attempt++)
        {
            var connection = await RawHttpConnection.OpenAsync(_address);
            await connection.SendAsync(head(attempt));
            var sending = chunked ? connection.SendChunkedZerosAsync(ReadOnlyMemory<byte>.Empty, BodyBytes) : connection.SendZerosAsync(BodyBytes);
            var response = await connection.ReadResponseAsync();
            await connection.DisposeAsync();
            await sending;

            statuses.Add(response.StatusCode);
            if (response.StatusCode == (int)HttpStatusCode.RequestEntityTooLarge)
            {
                ProblemAssert.IsProblem(response, HttpStatusCode.RequestEntityTooLarge);
            }
        }

        return statuses;
    }

    public async Task DisposeAsync()
    {
        if (_nginx is not null)
        {
            await _nginx.DisposeAsync();
        }

        Directory.Delete(_directory, recursive: true);
    }

    public Task InitializeAsync() => Task.CompletedTask;
}
