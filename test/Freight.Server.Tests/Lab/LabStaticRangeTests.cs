using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Text;
using Freight.Lab.Payload;
using Freight.Server.Lab;
using Freight.Server.Tests.Infrastructure;
using Microsoft.AspNetCore.WebUtilities;

namespace Freight.Server.Tests.Lab;

/// <summary>
/// Byte ranges (RFC 9110 §14) and If-Range (§13.1.5) on Freight's file path, /lab/static/freight/, over a
/// file served from the cache (4 KiB) and from disk (128 KiB and 1 MiB: by sendfile on cleartext HTTP/1.1; over HTTP/2
/// 128 KiB read whole, 1 MiB sent in flushes), in HTTP/1.1 and HTTP/2. Every body is compared byte for byte with the slice of the deterministic payload it claims.
/// </summary>
public sealed class LabStaticRangeTests(LabServer server) : IClassFixture<LabServer>
{
    private const string MultipartPrefix = "multipart/byteranges; boundary=";

    public static readonly int[] Sizes = [4096, 131072, 1048576];

    public static TheoryData<int, Protocol> SizeProtocol()
    {
        var cases = new TheoryData<int, Protocol>();
        foreach (var size in Sizes)
        {
            cases.Add(size, Protocol.Http11);
            cases.Add(size, Protocol.Http2);
        }

        return cases;
    }

    public static TheoryData<Protocol> Protocols() => new(Protocol.Http11, Protocol.Http2);

    private static string PathOf(long size) => $"/lab/static/freight/{LabStaticFiles.FileName(size)}";

    private static string Invariant(FormattableString text) => FormattableString.Invariant(text);

    private sealed record Answer(HttpStatusCode Status, byte[] Body, HttpResponseMessage Response)
    {
        /// <summary>The one value of response or content header <paramref name="name"/>, or null when absent.</summary>
        public string? Header(string name)
        {
            if (Response.Headers.NonValidated.TryGetValues(name, out var values) || Response.Content.Headers.NonValidated.TryGetValues(name, out values))
            {
                return Assert.Single(values);
            }

            return null;
        }
    }

    private async Task<Answer> SendAsync(HttpMethod method, Protocol protocol, string path, params (string Name, string Value)[] headers)
    {
        using var request = server.Request(method, protocol, path);
        foreach (var (name, value) in headers)
        {
            Assert.True(request.Headers.TryAddWithoutValidation(name, value));
        }

        var response = await server.Client.SendAsync(request);
        var body = await response.Content.ReadAsByteArrayAsync();
        Assert.Equal(request.Version, response.Version);
        return new Answer(response.StatusCode, body, response);
    }

    private Task<Answer> GetAsync(int size, Protocol protocol, params (string Name, string Value)[] headers) =>
        SendAsync(HttpMethod.Get, protocol, PathOf(size), headers);

    private static void AssertSinglePart(Answer answer, int size, long first, long last)
    {
        Assert.Equal(HttpStatusCode.PartialContent, answer.Status);
        Assert.Equal(Invariant($"bytes {first}-{last}/{size}"), answer.Header("Content-Range"));
        Assert.Equal(last - first + 1, answer.Response.Content.Headers.ContentLength);
        Assert.Equal("application/octet-stream", answer.Header("Content-Type"));
        Assert.Equal("bytes", answer.Header("Accept-Ranges"));
        StaticAssert.IsStrongEntityTag(answer.Header("ETag"));
        Assert.NotNull(answer.Header("Last-Modified"));
        Assert.Equal(DeterministicPayload.Create(size)[(int)first..(int)(last + 1)], answer.Body);
    }

    private static void AssertWholeFile(Answer answer, int size)
    {
        Assert.Equal(HttpStatusCode.OK, answer.Status);
        Assert.Null(answer.Header("Content-Range"));
        Assert.Equal(size, answer.Response.Content.Headers.ContentLength);
        Assert.Equal("bytes", answer.Header("Accept-Ranges"));
        Assert.Equal(DeterministicPayload.Create(size), answer.Body);
    }

    /// <summary>
    /// Asserts a multipart/byteranges 206 whose parts are exactly <paramref name="parts"/>, in that order:
    /// the body byte for byte as RFC 9110 §14.6 frames it, and, independently, as ASP.NET Core's
    /// MultipartReader reads it (each part's Content-Type, Content-Range and bytes). Returns the boundary.
    /// </summary>
    private static async Task<string> AssertMultipartAsync(Answer answer, int size, params (long First, long Last)[] parts)
    {
        Assert.Equal(HttpStatusCode.PartialContent, answer.Status);
        Assert.Null(answer.Header("Content-Range"));
        Assert.Equal("bytes", answer.Header("Accept-Ranges"));
        var contentType = answer.Header("Content-Type");
        Assert.NotNull(contentType);
        Assert.StartsWith(MultipartPrefix, contentType, StringComparison.Ordinal);
        var boundary = contentType[MultipartPrefix.Length..];
        Assert.True(boundary.Length >= 16, $"The boundary {boundary} is short.");
        Assert.Equal(answer.Body.Length, answer.Response.Content.Headers.ContentLength);

        var payload = DeterministicPayload.Create(size);
        Assert.Equal(ExpectedMultipart(boundary, payload, parts), answer.Body);

        var reader = new MultipartReader(boundary, new MemoryStream(answer.Body));
        foreach (var (first, last) in parts)
        {
            var section = await reader.ReadNextSectionAsync();
            Assert.NotNull(section);
            Assert.Equal("application/octet-stream", section.ContentType);
            Assert.Equal(Invariant($"bytes {first}-{last}/{size}"), section.Headers!["Content-Range"].ToString());
            using var bytes = new MemoryStream();
            await section.Body.CopyToAsync(bytes);
            Assert.Equal(payload[(int)first..(int)(last + 1)], bytes.ToArray());
        }

        Assert.Null(await reader.ReadNextSectionAsync());
        return boundary;
    }

    /// <summary>The body RFC 9110 §14.6's example shows: each part's delimiter, headers, empty line and bytes, then the close delimiter.</summary>
    private static byte[] ExpectedMultipart(string boundary, byte[] payload, (long First, long Last)[] parts)
    {
        using var body = new MemoryStream();
        for (var i = 0; i < parts.Length; i++)
        {
            var (first, last) = parts[i];
            body.Write(Encoding.ASCII.GetBytes(Invariant(
                $"{(i == 0 ? "" : "\r\n")}--{boundary}\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes {first}-{last}/{payload.Length}\r\n\r\n")));
            body.Write(payload, (int)first, (int)(last - first + 1));
        }

        body.Write(Encoding.ASCII.GetBytes($"\r\n--{boundary}--\r\n"));
        return body.ToArray();
    }

    // One range (§14.1.2, §15.3.7.1)

    [Theory]
    [MemberData(nameof(SizeProtocol))]
    public async Task Get_FirstLastRange_206WithThoseBytesAndContentRange(int size, Protocol protocol)
    {
        AssertSinglePart(await GetAsync(size, protocol, ("Range", "bytes=100-1099")), size, 100, 1099);
    }

    [Theory]
    [MemberData(nameof(SizeProtocol))]
    public async Task Get_FirstByteOnly_206WithOneByte(int size, Protocol protocol)
    {
        AssertSinglePart(await GetAsync(size, protocol, ("Range", "bytes=0-0")), size, 0, 0);
    }

    [Theory]
    [MemberData(nameof(SizeProtocol))]
    public async Task Get_SuffixRange_206WithTheLastBytes(int size, Protocol protocol)
    {
        AssertSinglePart(await GetAsync(size, protocol, ("Range", "bytes=-500")), size, size - 500, size - 1);
    }

    [Theory]
    [MemberData(nameof(SizeProtocol))]
    public async Task Get_OpenEndedRange_206ToTheEnd(int size, Protocol protocol)
    {
        // On 1 MiB the range is past FileResponder.WholeWriteMaxBytes: over HTTP/2 sent in flushes from the offset.
        AssertSinglePart(await GetAsync(size, protocol, ("Range", "bytes=1000-")), size, 1000, size - 1);
    }

    [Theory]
    [MemberData(nameof(SizeProtocol))]
    public async Task Get_LastPosPastTheEnd_206ClippedToTheLastByte(int size, Protocol protocol)
    {
        AssertSinglePart(await GetAsync(size, protocol, ("Range", "bytes=4000-99999999999999999999999")), size, 4000, size - 1);
    }

    [Theory]
    [MemberData(nameof(SizeProtocol))]
    public async Task Get_SuffixLongerThanTheFile_206WithTheWholeFile(int size, Protocol protocol)
    {
        AssertSinglePart(await GetAsync(size, protocol, ("Range", "bytes=-99999999")), size, 0, size - 1);
    }

    // Several ranges (§14.6, §15.3.7.2)

    [Theory]
    [MemberData(nameof(SizeProtocol))]
    public async Task Get_SeveralRanges_MultipartByterangesWithEachPartExact(int size, Protocol protocol)
    {
        var answer = await GetAsync(size, protocol, ("Range", "bytes=0-99, 1000-1999, -100"));

        await AssertMultipartAsync(answer, size, (0, 99), (1000, 1999), (size - 100, size - 1));
    }

    [Theory]
    [MemberData(nameof(Protocols))]
    public async Task Get_SeveralLargeRanges_MultipartSentInFlushesWithEachPartExact(Protocol protocol)
    {
        // 500 KB of parts: past FileResponder.WholeWriteMaxBytes, so over HTTP/2 each part goes through FileSender.SendAsync
        // (over HTTP/1.1 each is over SendFileAboveBytes: by sendfile after its head).
        var answer = await GetAsync(1048576, protocol, ("Range", "bytes=0-199999,300000-599999,-100000"));

        await AssertMultipartAsync(answer, 1048576, (0, 199999), (300000, 599999), (948576, 1048575));
    }

    [Theory]
    [MemberData(nameof(SizeProtocol))]
    public async Task Get_DisjointRangesOutOfOrder_PartsInRequestOrder(int size, Protocol protocol)
    {
        var answer = await GetAsync(size, protocol, ("Range", "bytes=1000-1099,0-99"));

        await AssertMultipartAsync(answer, size, (1000, 1099), (0, 99));
    }

    [Theory]
    [MemberData(nameof(SizeProtocol))]
    public async Task Get_RangesThatOverlapIntoOne_206WithOneCoalescedRange(int size, Protocol protocol)
    {
        // §14.6: a server MAY coalesce overlapping ranges; one part is then sent as a plain 206.
        AssertSinglePart(await GetAsync(size, protocol, ("Range", "bytes=500-999,0-99,50-599")), size, 0, 999);
    }

    [Theory]
    [MemberData(nameof(SizeProtocol))]
    public async Task Get_OverlappingRangesLeavingTwo_MultipartInAscendingOrder(int size, Protocol protocol)
    {
        var answer = await GetAsync(size, protocol, ("Range", "bytes=200-299,0-99,250-349"));

        await AssertMultipartAsync(answer, size, (0, 99), (200, 349));
    }

    [Theory]
    [MemberData(nameof(Protocols))]
    public async Task Get_ThousandCopiesOfOneRange_206WithThatRangeOnce(Protocol protocol)
    {
        // §17.15: overlapping ranges are how a small request asks for a huge response; coalesced, it is one part.
        var header = "bytes=" + string.Join(',', Enumerable.Repeat("0-999", 1000));

        AssertSinglePart(await GetAsync(1048576, protocol, ("Range", header)), 1048576, 0, 999);
    }

    [Theory]
    [MemberData(nameof(Protocols))]
    public async Task Get_OneHundredDisjointRanges_MultipartWithOneHundredParts(Protocol protocol)
    {
        var parts = Enumerable.Range(0, 100).Select(i => ((long)(10 * i), (long)((10 * i) + 4))).ToArray();
        var header = "bytes=" + string.Join(',', parts.Select(p => Invariant($"{p.Item1}-{p.Item2}")));

        await AssertMultipartAsync(await GetAsync(4096, protocol, ("Range", header)), 4096, parts);
    }

    [Theory]
    [MemberData(nameof(Protocols))]
    public async Task Get_MoreThanOneHundredDisjointRanges_200WithTheWholeFile(Protocol protocol)
    {
        // §14.2: a server MAY ignore a Range of many small ranges (a DoS sign); Freight.Downloads.ByteRangeSet.MaxRanges is 100.
        var header = "bytes=" + string.Join(',', Enumerable.Range(0, 101).Select(i => Invariant($"{10 * i}-{(10 * i) + 4}")));

        AssertWholeFile(await GetAsync(4096, protocol, ("Range", header)), 4096);
    }

    [Theory]
    [MemberData(nameof(Protocols))]
    public async Task Get_SeveralRangesTwice_NewBoundaryEachTime(Protocol protocol)
    {
        var first = await AssertMultipartAsync(await GetAsync(4096, protocol, ("Range", "bytes=0-9,20-29")), 4096, (0, 9), (20, 29));
        var second = await AssertMultipartAsync(await GetAsync(4096, protocol, ("Range", "bytes=0-9,20-29")), 4096, (0, 9), (20, 29));

        Assert.NotEqual(first, second);
    }

    // Unsatisfiable (§15.5.17) and invalid (§14.2) ranges

    public static TheoryData<int, Protocol, string> UnsatisfiableRanges()
    {
        var cases = new TheoryData<int, Protocol, string>();
        foreach (var size in Sizes)
        {
            foreach (var protocol in new[] { Protocol.Http11, Protocol.Http2 })
            {
                cases.Add(size, protocol, Invariant($"bytes={size}-"));
                cases.Add(size, protocol, Invariant($"bytes={size}-{size + 10}"));
                cases.Add(size, protocol, Invariant($"bytes={size + 5000}-{size + 6000},{size}-"));
                cases.Add(size, protocol, "bytes=-0");
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(UnsatisfiableRanges))]
    public async Task Get_NoRangeWithinTheFile_416WithContentRangeStarAndNoBody(int size, Protocol protocol, string range)
    {
        var answer = await GetAsync(size, protocol, ("Range", range));

        Assert.Equal(HttpStatusCode.RequestedRangeNotSatisfiable, answer.Status);
        Assert.Equal(Invariant($"bytes */{size}"), answer.Header("Content-Range"));
        Assert.Equal(0, answer.Response.Content.Headers.ContentLength);
        Assert.Empty(answer.Body);
    }

    public static TheoryData<int, Protocol, string> InvalidRanges()
    {
        var cases = new TheoryData<int, Protocol, string>();
        foreach (var size in new[] { 4096, 1048576 })
        {
            foreach (var protocol in new[] { Protocol.Http11, Protocol.Http2 })
            {
                foreach (var range in new[] { "bytes=a-b", "bytes=5-1", "bytes=", "items=0-1", "bytes=-", "bytes=0-1;2-3", "bytes=0-9,x", "0-99" })
                {
                    cases.Add(size, protocol, range);
                }
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(InvalidRanges))]
    public async Task Get_InvalidRange_200WithTheWholeFile(int size, Protocol protocol, string range)
    {
        AssertWholeFile(await GetAsync(size, protocol, ("Range", range)), size);
    }

    [Theory]
    [MemberData(nameof(Protocols))]
    public async Task Get_EmptyFileWithIntRange_416WithContentRangeStarZero(Protocol protocol)
    {
        File.WriteAllBytes(Path.Combine(server.DataDirectory, "lab", "static", "empty.bin"), []);

        var answer = await SendAsync(HttpMethod.Get, protocol, "/lab/static/freight/empty.bin", ("Range", "bytes=0-"));

        Assert.Equal(HttpStatusCode.RequestedRangeNotSatisfiable, answer.Status);
        Assert.Equal("bytes */0", answer.Header("Content-Range"));
        Assert.Empty(answer.Body);
    }

    [Theory]
    [MemberData(nameof(Protocols))]
    public async Task Get_EmptyFileWithSuffixRange_200Empty(Protocol protocol)
    {
        // §14.1.2 calls a non-zero suffix satisfiable on an empty representation, but a 206 cannot carry zero bytes.
        File.WriteAllBytes(Path.Combine(server.DataDirectory, "lab", "static", "empty.bin"), []);

        var answer = await SendAsync(HttpMethod.Get, protocol, "/lab/static/freight/empty.bin", ("Range", "bytes=-5"));

        Assert.Equal(HttpStatusCode.OK, answer.Status);
        Assert.Null(answer.Header("Content-Range"));
        Assert.Equal(0, answer.Response.Content.Headers.ContentLength);
        Assert.Empty(answer.Body);
    }

    // If-Range (§13.1.5) and the other preconditions (§13.2.2)

    private async Task<(string ETag, string LastModified)> ValidatorsAsync(int size, Protocol protocol)
    {
        var plain = await GetAsync(size, protocol);
        AssertWholeFile(plain, size);
        return (plain.Header("ETag")!, plain.Header("Last-Modified")!);
    }

    [Theory]
    [MemberData(nameof(SizeProtocol))]
    public async Task Get_IfRangeCurrentETag_206WithTheRange(int size, Protocol protocol)
    {
        var (etag, _) = await ValidatorsAsync(size, protocol);

        AssertSinglePart(await GetAsync(size, protocol, ("Range", "bytes=10-19"), ("If-Range", etag)), size, 10, 19);
    }

    [Theory]
    [MemberData(nameof(SizeProtocol))]
    public async Task Get_IfRangeOtherETag_200WithTheWholeFile(int size, Protocol protocol)
    {
        AssertWholeFile(await GetAsync(size, protocol, ("Range", "bytes=10-19"), ("If-Range", "\"an-older-version\"")), size);
    }

    [Theory]
    [MemberData(nameof(SizeProtocol))]
    public async Task Get_IfRangeWeakCurrentETag_200WithTheWholeFile(int size, Protocol protocol)
    {
        var (etag, _) = await ValidatorsAsync(size, protocol);

        AssertWholeFile(await GetAsync(size, protocol, ("Range", "bytes=10-19"), ("If-Range", "W/" + etag)), size);
    }

    [Theory]
    [MemberData(nameof(SizeProtocol))]
    public async Task Get_IfRangeLastModified_206WithTheRange(int size, Protocol protocol)
    {
        var (_, lastModified) = await ValidatorsAsync(size, protocol);

        var answer = await GetAsync(size, protocol, ("Range", "bytes=-10"), ("If-Range", lastModified));

        // The server wrote the file as it started: within that second its date is no strong validator (RFC 9110
        // §8.8.2.2), and the response's Date (then equal to its Last-Modified) says so.
        if (answer.Response.Headers.Date == answer.Response.Content.Headers.LastModified)
        {
            AssertWholeFile(answer, size);
        }
        else
        {
            AssertSinglePart(answer, size, size - 10, size - 1);
        }
    }

    [Theory]
    [MemberData(nameof(SizeProtocol))]
    public async Task Get_IfRangeEarlierDate_200WithTheWholeFile(int size, Protocol protocol)
    {
        var (_, lastModified) = await ValidatorsAsync(size, protocol);
        var earlier = DateTimeOffset.Parse(lastModified, CultureInfo.InvariantCulture).AddSeconds(-1).ToString("r", CultureInfo.InvariantCulture);

        AssertWholeFile(await GetAsync(size, protocol, ("Range", "bytes=-10"), ("If-Range", earlier)), size);
    }

    [Theory]
    [MemberData(nameof(SizeProtocol))]
    public async Task Get_IfNoneMatchCurrentETagWithRange_304(int size, Protocol protocol)
    {
        var (etag, _) = await ValidatorsAsync(size, protocol);

        var answer = await GetAsync(size, protocol, ("Range", "bytes=10-19"), ("If-Range", etag), ("If-None-Match", etag));

        Assert.Equal(HttpStatusCode.NotModified, answer.Status);
        Assert.Null(answer.Header("Content-Range"));
        Assert.Empty(answer.Body);
    }

    [Theory]
    [MemberData(nameof(Protocols))]
    public async Task Get_IfMatchOtherETagWithRange_412(Protocol protocol)
    {
        var answer = await GetAsync(4096, protocol, ("Range", "bytes=10-19"), ("If-Match", "\"an-older-version\""));

        Assert.Equal(HttpStatusCode.PreconditionFailed, answer.Status);
        Assert.Null(answer.Header("Content-Range"));
        Assert.Empty(answer.Body);
    }

    // HEAD and the plain GET (§14.2, §14.3)

    [Theory]
    [MemberData(nameof(SizeProtocol))]
    public async Task Head_WithRange_200WithTheWholeLengthAndAcceptRanges(int size, Protocol protocol)
    {
        // §14.2: range handling is defined for GET only.
        var answer = await SendAsync(HttpMethod.Head, protocol, PathOf(size), ("Range", "bytes=0-99"));

        Assert.Equal(HttpStatusCode.OK, answer.Status);
        Assert.Equal(size, answer.Response.Content.Headers.ContentLength);
        Assert.Equal("bytes", answer.Header("Accept-Ranges"));
        Assert.Null(answer.Header("Content-Range"));
        Assert.Empty(answer.Body);
    }

    [Theory]
    [MemberData(nameof(SizeProtocol))]
    public async Task Get_NoRange_200WithAcceptRangesBytes(int size, Protocol protocol)
    {
        AssertWholeFile(await GetAsync(size, protocol), size);
    }

    // On the wire: curl and raw sockets, where the exact header lines and framing matter

    private static async Task<(string Head, byte[] Body)> CurlAsync(params string[] arguments)
    {
        var bodyFile = Path.GetTempFileName();
        try
        {
            var start = new ProcessStartInfo("curl") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
            foreach (var argument in (string[])["-s", "-S", "-D", "-", "-o", bodyFile, .. arguments])
            {
                start.ArgumentList.Add(argument);
            }

            // Guards against a hang; no test asserts on time.
            using var limit = new CancellationTokenSource(TimeSpan.FromSeconds(60));
            using var curl = Process.Start(start)!;
            var stdout = curl.StandardOutput.ReadToEndAsync(limit.Token);
            var stderr = curl.StandardError.ReadToEndAsync(limit.Token);
            await curl.WaitForExitAsync(limit.Token);
            Assert.True(curl.ExitCode == 0, $"curl exited with {curl.ExitCode}: {await stderr}");
            return ((await stdout).TrimEnd(), await File.ReadAllBytesAsync(bodyFile));
        }
        finally
        {
            File.Delete(bodyFile);
        }
    }

    [Theory]
    [InlineData(4096)]
    [InlineData(1048576)]
    public async Task Get_CurlRangeOverHttp11_206HeaderLinesAndTheBytes(int size)
    {
        var (head, body) = await CurlAsync("--http1.1", "-r", "0-99", new Uri(server.HttpAddress, PathOf(size)).ToString());

        Assert.StartsWith("HTTP/1.1 206 Partial Content\r\n", head, StringComparison.Ordinal);
        Assert.Equal(Invariant($"bytes 0-99/{size}"), RawExchange.Header(head, "Content-Range"));
        Assert.Equal("100", RawExchange.Header(head, "Content-Length"));
        Assert.Equal("bytes", RawExchange.Header(head, "Accept-Ranges"));
        Assert.Equal("application/octet-stream", RawExchange.Header(head, "Content-Type"));
        Assert.Null(RawExchange.Header(head, "Transfer-Encoding"));
        Assert.Equal(DeterministicPayload.Create(size)[..100], body);
    }

    [Fact]
    public async Task Get_CurlSeveralRangesOverHttp2_MultipartExact()
    {
        // -k: the server's certificate is self-signed for the test run; the bytes are what this test checks.
        var (head, body) = await CurlAsync("--http2", "-k", "-r", "0-9,-10", new Uri(server.HttpsAddress, PathOf(4096)).ToString());

        Assert.StartsWith("HTTP/2 206", head, StringComparison.Ordinal);
        var contentType = RawExchange.Header(head, "Content-Type");
        Assert.NotNull(contentType);
        Assert.StartsWith(MultipartPrefix, contentType, StringComparison.Ordinal);
        Assert.Equal(body.Length.ToString(CultureInfo.InvariantCulture), RawExchange.Header(head, "Content-Length"));
        Assert.Equal(ExpectedMultipart(contentType[MultipartPrefix.Length..], DeterministicPayload.Create(4096), [(0, 9), (4086, 4095)]), body);
    }

    [Theory]
    [InlineData(4096)]
    [InlineData(131072)]
    [InlineData(1048576)]
    public async Task Get_SeveralRangesOnRawHttp11_ContentLengthFramingAndExactBody(int size)
    {
        var wire = await RawExchange.SendAndReadToEndAsync(
            server.HttpAddress,
            RawHttpConnection.Head("GET", server.HttpAddress, PathOf(size), "Range: bytes=0-9,20-29", "Connection: close"));

        var (head, rest) = RawExchange.SplitHead(wire);
        Assert.StartsWith("HTTP/1.1 206 ", head, StringComparison.Ordinal);
        Assert.Null(RawExchange.Header(head, "Transfer-Encoding"));
        Assert.Equal(rest.Length.ToString(CultureInfo.InvariantCulture), RawExchange.Header(head, "Content-Length"));
        var contentType = RawExchange.Header(head, "Content-Type");
        Assert.NotNull(contentType);
        Assert.StartsWith(MultipartPrefix, contentType, StringComparison.Ordinal);
        Assert.Equal(ExpectedMultipart(contentType[MultipartPrefix.Length..], DeterministicPayload.Create(size), [(0, 9), (20, 29)]), rest);
    }

    [Theory]
    [InlineData(4096)]
    [InlineData(1048576)]
    public async Task Get_UnsatisfiableRangeOnRawHttp11_416WithoutBodyBytes(int size)
    {
        var wire = await RawExchange.SendAndReadToEndAsync(
            server.HttpAddress,
            RawHttpConnection.Head("GET", server.HttpAddress, PathOf(size), Invariant($"Range: bytes={size}-"), "Connection: close"));

        var (head, rest) = RawExchange.SplitHead(wire);
        Assert.StartsWith("HTTP/1.1 416 ", head, StringComparison.Ordinal);
        Assert.Equal(Invariant($"bytes */{size}"), RawExchange.Header(head, "Content-Range"));
        Assert.Equal("0", RawExchange.Header(head, "Content-Length"));
        Assert.Null(RawExchange.Header(head, "Transfer-Encoding"));
        Assert.Empty(rest);
    }

    [Fact]
    public async Task Get_TwoRangeFieldLinesOnRawHttp11_200WithTheWholeFile()
    {
        // Range is a singleton field (§14.2): two lines make no ranges-specifier, so the Range is ignored.
        var wire = await RawExchange.SendAndReadToEndAsync(
            server.HttpAddress,
            RawHttpConnection.Head("GET", server.HttpAddress, PathOf(4096), "Range: bytes=0-9", "Range: bytes=20-29", "Connection: close"));

        var (head, rest) = RawExchange.SplitHead(wire);
        Assert.StartsWith("HTTP/1.1 200 ", head, StringComparison.Ordinal);
        Assert.Null(RawExchange.Header(head, "Content-Range"));
        Assert.Equal(DeterministicPayload.Create(4096), rest);
    }
}
