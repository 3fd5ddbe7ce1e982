using System.Collections.Concurrent;
using System.Net;
using System.Net.Http.Headers;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Hostile;

/// <summary>
/// Two PUTs of the same length to one key, their last bytes released together, GETs running all the while
/// (half of them asking for a SHA-256 the store then keeps): no GET may pair one version's bytes with the
/// other's ETag or digest, and no version may end up with the other's digest stored. On the file-system store
/// this is what a sidecar matched by length and modification time alone got wrong (both versions are written
/// in the same clock tick).
/// </summary>
public abstract class RacingWriterTests(FilesServer server)
{
    // Enough rounds that a sidecar matched by length and mtime alone mixed versions in every run tried (6 of 6
    // at 200 rounds, after 2-9 s on 2 busy cores); small bodies so GETs are quick and many fall between commits.
    protected virtual int Rounds => 200;

    private const int Size = 4096;
    private const int Readers = 6;

    [Fact]
    public async Task SameLengthPuts_ReleasedTogether_EveryGetPairsBytesWithTheirOwnETagAndDigest()
    {
        var key = $"{NewRoot()}/raced.bin";
        byte[][] versions = [Content(Size, seed: 1601), Content(Size, seed: 1602)];
        await CreateAsync(server, key, versions[0]);

        var mismatches = new ConcurrentQueue<string>();
        var gets = 0;
        using var stop = new CancellationTokenSource();
        var readers = Enumerable.Range(0, Readers).Select(reader => Task.Run(async () =>
        {
            for (var i = 0; !stop.IsCancellationRequested; i++)
            {
                var wantDigest = (i + reader) % 2 == 0;
                await CheckGetAsync(key, wantDigest, mismatches);
                Interlocked.Increment(ref gets);
            }
        })).ToArray();

        try
        {
            for (var round = 0; round < Rounds && mismatches.IsEmpty; round++)
            {
                var bodies = versions.Select(v => new HeldLastByteContent(v)).ToArray();
                var puts = bodies.Select(body => PutHeldAsync(key, body)).ToArray();
                await Task.WhenAll(bodies.Select(b => b.AllButLastSent));
                foreach (var body in bodies)
                {
                    body.Release();
                }

                await Task.WhenAll(puts);
                // The version that won, with what the store keeps for it (this GET asks for the digest too).
                await CheckGetAsync(key, wantDigest: true, mismatches);
            }
        }
        finally
        {
            await stop.CancelAsync();
            await Task.WhenAll(readers);
        }

        Assert.True(gets > 0);
        Assert.True(mismatches.IsEmpty, $"{mismatches.Count} GETs paired bytes with another version's headers:\n{string.Join('\n', mismatches.Take(10))}");
    }

    private async Task PutHeldAsync(string key, HeldLastByteContent body)
    {
        using var request = server.Request(HttpMethod.Put, Protocol.Http11, "/files/" + key);
        request.Content = body;
        using var response = await server.Client.SendAsync(request);
        await AssertStatusAsync(response, HttpStatusCode.NoContent);
        Assert.Equal(ETag(body.Content), response.Headers.ETag?.ToString());
    }

    /// <summary>One GET: its bytes must hash to its ETag, and a Repr-Digest it carries must be theirs.</summary>
    private async Task CheckGetAsync(string key, bool wantDigest, ConcurrentQueue<string> mismatches)
    {
        using var response = wantDigest
            ? await SendAsync(server, HttpMethod.Get, "/files/" + key, ("Want-Repr-Digest", "sha-256=1"))
            : await SendAsync(server, HttpMethod.Get, "/files/" + key);
        if (response.StatusCode == HttpStatusCode.ServiceUnavailable)
        {
            // Replaced during every try of a store that keeps no old versions (S3): an honest refusal, not a mix.
            await ProblemAssert.IsProblemAsync(response, HttpStatusCode.ServiceUnavailable);
            return;
        }

        await AssertStatusAsync(response, HttpStatusCode.OK);
        var body = await response.Content.ReadAsByteArrayAsync();
        var etag = response.Headers.ETag?.ToString();
        if (etag != ETag(body))
        {
            mismatches.Enqueue($"ETag {etag} on bytes whose ETag is {ETag(body)}");
        }

        if (response.Headers.TryGetValues("Repr-Digest", out var digests) && digests.Single() != Sha256Field(body))
        {
            mismatches.Enqueue($"Repr-Digest {digests.Single()} on bytes whose SHA-256 is {Sha256Field(body)} (ETag {etag})");
        }
    }

    /// <summary>A body of known length whose last byte waits for <see cref="Release"/>: two of them commit together.</summary>
    private sealed class HeldLastByteContent : HttpContent
    {
        private readonly TaskCompletionSource _allButLastSent = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly TaskCompletionSource _released = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public HeldLastByteContent(byte[] content)
        {
            Content = content;
            Headers.ContentType = new MediaTypeHeaderValue("application/octet-stream");
        }

        public byte[] Content { get; }

        public Task AllButLastSent => _allButLastSent.Task;

        public void Release() => _released.TrySetResult();

        protected override async Task SerializeToStreamAsync(Stream stream, TransportContext? context)
        {
            await stream.WriteAsync(Content.AsMemory(0, Content.Length - 1));
            await stream.FlushAsync();
            _allButLastSent.TrySetResult();
            await _released.Task;
            await stream.WriteAsync(Content.AsMemory(Content.Length - 1));
        }

        protected override bool TryComputeLength(out long length)
        {
            length = Content.Length;
            return true;
        }
    }
}

public sealed class RacingWriterFileSystemTests(FileSystemFilesServer server) : RacingWriterTests(server), IClassFixture<FileSystemFilesServer>;

public sealed class RacingWriterMemoryTests(MemoryFilesServer server) : RacingWriterTests(server), IClassFixture<MemoryFilesServer>;

/// <summary>
/// S3 has no clock tick to race (metadata travels on the object, reads are pinned to it with If-Match): fewer
/// rounds, for its pinning and the GET that opens the replacing version when its own was replaced.
/// </summary>
public sealed class RacingWriterS3Tests(S3FilesServer server) : RacingWriterTests(server), IClassFixture<S3FilesServer>
{
    protected override int Rounds => 40;
}
