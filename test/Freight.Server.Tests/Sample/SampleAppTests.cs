using System.Net;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Sample;

/// <summary>
/// The sample app built from the packages answers as <c>freight serve</c> does: the files API and tus it maps, and
/// its own routes made of the building blocks (streaming multipart into the store, a typed result out of it).
/// </summary>
public sealed class SampleAppTests(SampleApp sample) : IClassFixture<SampleApp>
{
    private const string TusVersion = "1.0.0";

    private HttpClient Client => sample.Client;

    [Fact]
    public void Build_FromTheFeed_HoldsThePackagedAssembliesAndNoLab()
    {
        Assert.True(File.Exists(Path.Combine(sample.BuildOutput, "Freight.dll")));
        Assert.True(File.Exists(Path.Combine(sample.BuildOutput, "Freight.AspNetCore.dll")));
        Assert.False(File.Exists(Path.Combine(sample.BuildOutput, "Freight.Lab.dll")));
        Assert.False(File.Exists(Path.Combine(sample.BuildOutput, "AWSSDK.S3.dll")));

        // deps.json says where each assembly came from: "package" (the feed), never "project" (a project reference).
        using var deps = JsonDocument.Parse(File.ReadAllText(Path.Combine(sample.BuildOutput, "Freight.Sample.deps.json")));
        var libraries = deps.RootElement.GetProperty("libraries");
        foreach (var package in new[] { "Freight", "Freight.AspNetCore" })
        {
            Assert.Equal("package", libraries.GetProperty($"{package}/0.1.0").GetProperty("type").GetString());
        }

        Assert.DoesNotContain(libraries.EnumerateObject(), library => library.Name.StartsWith("Freight.Lab", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Put_ThenGet_AnswersTheBytesAndTheirETag()
    {
        var bytes = Payloads.Bytes(100_000);
        using var put = await Client.PutAsync("/files/round/trip.bin", new ByteArrayContent(bytes));
        Assert.Equal(HttpStatusCode.Created, put.StatusCode);

        using var get = await Client.GetAsync("/files/round/trip.bin");
        Assert.Equal(HttpStatusCode.OK, get.StatusCode);
        Assert.Equal(bytes, await get.Content.ReadAsByteArrayAsync());
        Assert.Equal($"\"{Payloads.Hash(bytes)}\"", get.Headers.ETag?.Tag);
        Assert.Equal(put.Headers.ETag, get.Headers.ETag);
    }

    [Fact]
    public async Task Get_WithRange_Answers206WithTheRange()
    {
        var bytes = Payloads.Bytes(10_000);
        (await Client.PutAsync("/files/range.bin", new ByteArrayContent(bytes))).Dispose();

        using var request = new HttpRequestMessage(HttpMethod.Get, "/files/range.bin");
        request.Headers.Range = new RangeHeaderValue(100, 199);
        using var response = await Client.SendAsync(request);

        Assert.Equal(HttpStatusCode.PartialContent, response.StatusCode);
        Assert.Equal("bytes 100-199/10000", response.Content.Headers.ContentRange?.ToString());
        Assert.Equal(bytes[100..200], await response.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task Get_WithMatchingIfNoneMatch_Answers304()
    {
        using var put = await Client.PutAsync("/files/cached.txt", new ByteArrayContent("cached"u8.ToArray()));

        using var request = new HttpRequestMessage(HttpMethod.Get, "/files/cached.txt");
        request.Headers.IfNoneMatch.Add(put.Headers.ETag!);
        using var response = await Client.SendAsync(request);

        Assert.Equal(HttpStatusCode.NotModified, response.StatusCode);
        Assert.Empty(await response.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task Put_WithWrongContentDigest_Answers400ProblemAndStoresNothing()
    {
        using var request = new HttpRequestMessage(HttpMethod.Put, "/files/digest/wrong.txt") { Content = new ByteArrayContent("the bytes"u8.ToArray()) };
        var otherBytes = SHA256.HashData("other bytes"u8);
        request.Headers.TryAddWithoutValidation("Content-Digest", $"sha-256=:{Convert.ToBase64String(otherBytes)}:");
        using var response = await Client.SendAsync(request);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.BadRequest);
        using var get = await Client.GetAsync("/files/digest/wrong.txt");
        Assert.Equal(HttpStatusCode.NotFound, get.StatusCode);
        Assert.False(File.Exists(Path.Combine(sample.FilesDirectory, "digest", "wrong.txt")));
    }

    [Fact]
    public async Task PostMultipart_ToTheFilesApi_StoresTheFilePart()
    {
        var bytes = Payloads.Bytes(70_000);
        using var content = new ByteArrayContent(MultipartBodies.Complete(bytes));
        content.Headers.TryAddWithoutValidation("Content-Type", MultipartBodies.ContentType);
        using var post = await Client.PostAsync("/files/forms", content);
        Assert.Equal(HttpStatusCode.Created, post.StatusCode);

        using var get = await Client.GetAsync("/files/forms/payload.bin");
        Assert.Equal(bytes, await get.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task Tus_CreatePatchTwiceHead_LandsTheFile()
    {
        var bytes = Payloads.Bytes(20_000);
        using var create = new HttpRequestMessage(HttpMethod.Post, "/tus/");
        create.Headers.Add("Tus-Resumable", TusVersion);
        create.Headers.Add("Upload-Length", "20000");
        create.Headers.Add("Upload-Metadata", "filename " + Convert.ToBase64String("tus/landed.bin"u8));
        using var created = await Client.SendAsync(create);
        Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        var upload = created.Headers.Location!.ToString();

        using (var first = await PatchAsync(upload, 0, bytes[..12_000]))
        {
            Assert.Equal(HttpStatusCode.NoContent, first.StatusCode);
            Assert.Equal("12000", Header(first, "Upload-Offset"));
        }

        using (var head = new HttpRequestMessage(HttpMethod.Head, upload))
        {
            head.Headers.Add("Tus-Resumable", TusVersion);
            using var offset = await Client.SendAsync(head);
            Assert.Equal(HttpStatusCode.OK, offset.StatusCode);
            Assert.Equal("12000", Header(offset, "Upload-Offset"));
        }

        using var last = await PatchAsync(upload, 12_000, bytes[12_000..]);
        Assert.Equal(HttpStatusCode.NoContent, last.StatusCode);
        Assert.Equal("20000", Header(last, "Upload-Offset"));
        using (var head = new HttpRequestMessage(HttpMethod.Head, upload))
        {
            head.Headers.Add("Tus-Resumable", TusVersion);
            using var finished = await Client.SendAsync(head);
            Assert.Equal("20000", Header(finished, "Upload-Offset"));
            Assert.Equal("/files/tus/landed.bin", finished.Content.Headers.ContentLocation?.ToString());
        }

        using var get = await Client.GetAsync("/files/tus/landed.bin");
        Assert.Equal(bytes, await get.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task PostPhotos_StreamingMultipart_StoresEachFilePartAndTheTypedResultServesIt()
    {
        var first = Payloads.Bytes(50_000);
        var second = Encoding.ASCII.GetBytes("second photo");
        using var form = new MultipartFormDataContent
        {
            { new StringContent("a caption"), "caption" },
            { new ByteArrayContent(first), "photo", "one.jpg" },
            { new ByteArrayContent(second), "photo", "../two.jpg" },
        };
        using var post = await Client.PostAsync("/photos", form);
        Assert.Equal(HttpStatusCode.OK, post.StatusCode);
        Assert.Equal(["photos/one.jpg", "photos/two.jpg"], await JsonSerializer.DeserializeAsync<string[]>(await post.Content.ReadAsStreamAsync()) ?? []);

        using var one = await Client.GetAsync("/photos/one.jpg");
        Assert.Equal(HttpStatusCode.OK, one.StatusCode);
        Assert.Equal(first, await one.Content.ReadAsByteArrayAsync());
        Assert.Equal($"\"{Payloads.Hash(first)}\"", one.Headers.ETag?.Tag);
        Assert.Equal("image/jpeg", one.Content.Headers.ContentType?.MediaType);
        Assert.True(one.Headers.CacheControl?.NoCache, "the sample's photos say Cache-Control: no-cache");

        using var range = new HttpRequestMessage(HttpMethod.Get, "/photos/two.jpg");
        range.Headers.Range = new RangeHeaderValue(7, null);
        using var two = await Client.SendAsync(range);
        Assert.Equal(HttpStatusCode.PartialContent, two.StatusCode);
        Assert.Equal("photo"u8.ToArray(), await two.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task GetPhoto_Missing_Answers404Problem()
    {
        using var response = await Client.GetAsync("/photos/none.jpg");

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
    }

    /// <summary>Routing refuses it before the handler runs; <c>UseFreightProblems()</c> alone gives it its problem body.</summary>
    [Fact]
    public async Task PostPhotos_NotMultipart_Answers415Problem()
    {
        var response = await FilesApi.RawAsync(sample.HttpAddress,
            RawHttpConnection.Head("POST", sample.HttpAddress, "/photos", "Content-Type: text/plain", "Content-Length: 5"),
            Encoding.ASCII.GetBytes("hello"));

        ProblemAssert.IsRoutingProblem(response, HttpStatusCode.UnsupportedMediaType);
    }

    [Fact]
    public async Task Get_UnknownRoute_Answers404Problem()
    {
        var response = await FilesApi.RawAsync(sample.HttpAddress, RawHttpConnection.Head("GET", sample.HttpAddress, "/nowhere/at/all"));

        ProblemAssert.IsRoutingProblem(response, HttpStatusCode.NotFound);
    }

    private async Task<HttpResponseMessage> PatchAsync(string upload, long offset, byte[] chunk)
    {
        using var request = new HttpRequestMessage(HttpMethod.Patch, upload) { Content = new ByteArrayContent(chunk) };
        request.Headers.Add("Tus-Resumable", TusVersion);
        request.Headers.Add("Upload-Offset", offset.ToString(System.Globalization.CultureInfo.InvariantCulture));
        request.Content.Headers.ContentType = new MediaTypeHeaderValue("application/offset+octet-stream");
        return await Client.SendAsync(request);
    }

    private static string? Header(HttpResponseMessage response, string name) =>
        response.Headers.TryGetValues(name, out var values) ? values.Single() : null;
}
