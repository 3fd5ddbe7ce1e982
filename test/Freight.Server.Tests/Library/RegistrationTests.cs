using System.Net;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Text;
using Freight.AspNetCore.Errors;
using Freight.AspNetCore.Results;
using Freight.Downloads;
using Freight.Server.Tests.Infrastructure;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Freight.Server.Tests.Library;

/// <summary>
/// Freight in an app of its own, registered as a user registers it (AddFreight* + MapFreight*), on a real Kestrel at
/// 127.0.0.1:0: invalid options stop the host at start naming their key, and the prefixes are the app's choice.
/// </summary>
public sealed class RegistrationTests : IDisposable
{
    private readonly string _root = Path.Combine(Path.GetTempPath(), "freight-registration-tests", Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    /// <summary>
    /// Every option with a rule, under sections the app named (Blobs, Up, Disk), so the message must name the key
    /// the app's configuration has, not Freight's default.
    /// </summary>
    [Theory]
    [InlineData("Blobs:MaxFileBytes", "-1", "Blobs:MaxFileBytes")]
    [InlineData("Blobs:MaxConcurrentUploadsPerClient", "0", "Blobs:MaxConcurrentUploadsPerClient")]
    [InlineData("Blobs:MinUploadBytesPerSecond", "-1", "Blobs:MinUploadBytesPerSecond")]
    [InlineData("Blobs:MaxListLimit", "0", "Blobs:MaxListLimit")]
    [InlineData("Blobs:ReadTokens:0", " ", "Blobs:ReadTokens/WriteTokens")]
    [InlineData("Up:MaxUploadBytes", "-1", "Up:MaxUploadBytes")]
    [InlineData("Up:ExpireAfter", "00:00:00", "Up:ExpireAfter")]
    [InlineData("Up:SweepInterval", "-00:01:00", "Up:SweepInterval")]
    [InlineData("Up:MaxUnfinishedUploadsPerClient", "0", "Up:MaxUnfinishedUploadsPerClient")]
    [InlineData("Up:MaxPendingBytes", "-1", "Up:MaxPendingBytes")]
    [InlineData("Up:MinFreeBytes", "-1", "Up:MinFreeBytes")]
    [InlineData("Up:FilesPrefix", "/absolute", "Up:FilesPrefix")]
    [InlineData("Disk:RootDirectory", " ", "Disk:RootDirectory")]
    public async Task StartAsync_InvalidOption_FailsNamingTheKey(string key, string value, string named)
    {
        var settings = new Dictionary<string, string?> { ["Disk:RootDirectory"] = _root, [key] = value };
        await using var app = BuildApp(settings, services => services.AddFreightFileSystemStore("Disk"));

        var invalid = await Assert.ThrowsAsync<OptionsValidationException>(() => app.StartAsync());

        Assert.StartsWith(named, Assert.Single(invalid.Failures), StringComparison.Ordinal);
    }

    /// <summary>
    /// One token where the options take a list (<c>WriteTokens=T</c>, the form an environment variable or a plain key
    /// invites): the binder drops it without a word, which started the files API open to anyone.
    /// </summary>
    [Theory]
    [InlineData("Blobs:WriteTokens")]
    [InlineData("Blobs:ReadTokens")]
    public async Task StartAsync_OneTokenWithoutAnIndex_FailsSayingHowToGiveTheList(string key)
    {
        await using var app = BuildApp(new() { [key] = "token-1" }, services => services.AddFreightMemoryStore());

        var invalid = await Assert.ThrowsAsync<OptionsValidationException>(() => app.StartAsync());

        Assert.Equal($"{key} is a list: give each value its index ({key}:0, :1, … or a JSON array); one value without an index is not read.", Assert.Single(invalid.Failures));
    }

    [Theory]
    [InlineData("Bucket:Bucket", "")]
    [InlineData("Bucket:Endpoint", "ftp://127.0.0.1:7480")]
    [InlineData("Bucket:PartBytes", "1024")]
    [InlineData("Bucket:PartsInFlight", "0")]
    [InlineData("Bucket:Prefix", "/files")]
    public async Task StartAsync_InvalidS3Option_FailsNamingTheKey(string key, string value)
    {
        var settings = new Dictionary<string, string?>
        {
            ["Bucket:Bucket"] = "freight",
            ["Bucket:Endpoint"] = "http://127.0.0.1:7480",
            ["Bucket:AccessKey"] = "key",
            ["Bucket:SecretKey"] = "secret",
            [key] = value,
        };
        await using var app = BuildApp(settings, services => services.AddFreightS3Store("Bucket"));

        var invalid = await Assert.ThrowsAsync<OptionsValidationException>(() => app.StartAsync());

        Assert.StartsWith(key + " ", Assert.Single(invalid.Failures), StringComparison.Ordinal);
    }

    [Fact]
    public async Task StartAsync_UnconvertibleOption_FailsNamingTheKey()
    {
        await using var app = BuildApp(new() { ["Blobs:MaxFileBytes"] = "lots" }, services => services.AddFreightMemoryStore());

        var unbindable = await Assert.ThrowsAsync<InvalidOperationException>(() => app.StartAsync());

        Assert.Contains("Blobs:MaxFileBytes", unbindable.Message, StringComparison.Ordinal);
    }

    /// <summary>
    /// A store directory the app cannot make stops the host at start, as an invalid option does: one
    /// <see cref="OptionsValidationException"/> naming the key, the directory and why, not the raw IOException at the first request.
    /// </summary>
    [Fact]
    public async Task StartAsync_RootDirectoryIsAFile_FailsNamingTheKeyTheDirectoryAndWhy()
    {
        Directory.CreateDirectory(_root);
        var file = Path.Combine(_root, "files");
        await File.WriteAllTextAsync(file, "not a directory");
        await using var app = BuildApp(new() { ["Disk:RootDirectory"] = file }, services => services.AddFreightFileSystemStore("Disk"));

        var unusable = await Assert.ThrowsAsync<OptionsValidationException>(() => app.StartAsync());

        Assert.Equal(
            $"Disk:RootDirectory: {file} is a file, not a directory: choose a directory in Disk:RootDirectory.",
            Assert.Single(unusable.Failures));
        Assert.Equal(typeof(Freight.AspNetCore.Stores.FreightFileSystemOptions), unusable.OptionsType);
        Assert.Equal("not a directory", await File.ReadAllTextAsync(file));
    }

    [Fact]
    public async Task StartAsync_UploadsDirectoryBelowAFile_FailsNamingTheFileInTheWay()
    {
        Directory.CreateDirectory(_root);
        var file = Path.Combine(_root, "uploads");
        await File.WriteAllTextAsync(file, "not a directory");
        var uploads = Path.Combine(file, "below");
        await using var app = BuildApp(
            new() { ["Disk:RootDirectory"] = Path.Combine(_root, "files"), ["Disk:UploadsDirectory"] = uploads },
            services => services.AddFreightFileSystemStore("Disk"));

        var unusable = await Assert.ThrowsAsync<OptionsValidationException>(() => app.StartAsync());

        Assert.Equal(
            $"Disk:UploadsDirectory: {uploads} cannot be created: {file} is a file, not a directory. Choose a directory in Disk:UploadsDirectory.",
            Assert.Single(unusable.Failures));
    }

    /// <summary>Without tus nothing else makes the store at start: the files API alone still fails there, not at its first request.</summary>
    [Fact]
    public async Task StartAsync_FilesApiAloneRootDirectoryBelowAFile_FailsAtStartNotAtTheFirstRequest()
    {
        Directory.CreateDirectory(_root);
        var file = Path.Combine(_root, "data");
        await File.WriteAllTextAsync(file, "not a directory");
        var root = Path.Combine(file, "files");
        var builder = WebApplication.CreateBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Services.AddFreightFiles().AddFreightFileSystemStore(store => store.RootDirectory = root);
        await using var app = builder.Build();
        app.MapFreightFiles("/files");

        var unusable = await Assert.ThrowsAsync<OptionsValidationException>(() => app.StartAsync());

        Assert.Equal(
            $"Freight:FileSystem:RootDirectory: {root} cannot be created: {file} is a file, not a directory. Choose a directory in Freight:FileSystem:RootDirectory.",
            Assert.Single(unusable.Failures));
    }

    [Freight.Server.Tests.Hostile.TmpfsFact]
    public async Task StartAsync_RootDirectoryOnAReadOnlyVolume_FailsSayingItCannotBeWritten()
    {
        using var tmpfs = new Freight.Server.Tests.Hostile.Tmpfs();
        tmpfs.Mount(64 * 1024, readOnly: true);
        var root = Path.Combine(tmpfs.Path, "files");
        await using var app = BuildApp(new() { ["Disk:RootDirectory"] = root }, services => services.AddFreightFileSystemStore("Disk"));

        var unusable = await Assert.ThrowsAsync<OptionsValidationException>(() => app.StartAsync());

        var failure = Assert.Single(unusable.Failures);
        Assert.StartsWith($"Disk:RootDirectory: {root} cannot be written (", failure, StringComparison.Ordinal);
        Assert.EndsWith("): choose a directory the app may write to in Disk:RootDirectory.", failure, StringComparison.Ordinal);
        Assert.False(Directory.Exists(root));
    }

    [Fact]
    public void MapFreightFiles_NoStoreRegistered_ThrowsNamingTheStoreCalls()
    {
        var builder = WebApplication.CreateBuilder();
        builder.Services.AddFreightFiles();
        using var app = builder.Build();

        var missing = Assert.Throws<InvalidOperationException>(() => app.MapFreightFiles("/files"));

        Assert.Contains("AddFreightFileSystemStore", missing.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task CustomPrefixes_PutGetHeadAndTusCreatePatch_WorkEndToEnd()
    {
        await using var app = BuildApp(new(), services => services.AddFreightFileSystemStore("Disk", disk => disk.RootDirectory = Path.Combine(_root, "files")));
        app.MapFreightFiles("/api/blobs");
        app.MapFreightTus("/up");
        await app.StartAsync();
        using var client = new HttpClient { BaseAddress = new Uri(app.Urls.Single()) };
        var content = Encoding.UTF8.GetBytes("bytes stored under the app's own prefix");

        using var put = await client.PutAsync("/api/blobs/docs/hello.txt", new ByteArrayContent(content));
        Assert.Equal(HttpStatusCode.Created, put.StatusCode);
        Assert.Equal("/api/blobs/docs/hello.txt", put.Headers.Location?.OriginalString);
        Assert.Equal(content, await File.ReadAllBytesAsync(Path.Combine(_root, "files", "docs", "hello.txt")));

        using var get = await client.GetAsync("/api/blobs/docs/hello.txt");
        Assert.Equal(HttpStatusCode.OK, get.StatusCode);
        Assert.Equal(content, await get.Content.ReadAsByteArrayAsync());
        Assert.Equal(put.Headers.ETag, get.Headers.ETag);

        using var head = await client.SendAsync(new HttpRequestMessage(HttpMethod.Head, "/api/blobs/docs/hello.txt"));
        Assert.Equal(HttpStatusCode.OK, head.StatusCode);
        Assert.Equal(content.Length, head.Content.Headers.ContentLength);
        Assert.Equal(put.Headers.ETag, head.Headers.ETag);

        using var atDefault = await client.GetAsync("/files/docs/hello.txt");
        Assert.Equal(HttpStatusCode.NotFound, atDefault.StatusCode);

        var upload = Encoding.UTF8.GetBytes("a tus upload that lands in the files store");
        using var create = new HttpRequestMessage(HttpMethod.Post, "/up");
        create.Headers.Add("Tus-Resumable", "1.0.0");
        create.Headers.Add("Upload-Length", upload.Length.ToString(System.Globalization.CultureInfo.InvariantCulture));
        create.Headers.Add("Upload-Metadata", "filename " + Convert.ToBase64String(Encoding.UTF8.GetBytes("docs/up.bin")));
        using var created = await client.SendAsync(create);
        Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        var location = created.Headers.Location?.OriginalString ?? "";
        Assert.StartsWith("/up/", location, StringComparison.Ordinal);

        using var patch = new HttpRequestMessage(HttpMethod.Patch, location) { Content = new ByteArrayContent(upload) };
        patch.Headers.Add("Tus-Resumable", "1.0.0");
        patch.Headers.Add("Upload-Offset", "0");
        patch.Content.Headers.ContentType = MediaTypeHeaderValue.Parse("application/offset+octet-stream");
        using var patched = await client.SendAsync(patch);
        Assert.Equal(HttpStatusCode.NoContent, patched.StatusCode);
        Assert.Equal(upload.Length.ToString(System.Globalization.CultureInfo.InvariantCulture), patched.Headers.GetValues("Upload-Offset").Single());

        using var state = new HttpRequestMessage(HttpMethod.Head, location);
        state.Headers.Add("Tus-Resumable", "1.0.0");
        using var finished = await client.SendAsync(state);
        Assert.Equal("/api/blobs/docs/up.bin", finished.Content.Headers.ContentLocation?.OriginalString);
        using var landed = await client.GetAsync("/api/blobs/docs/up.bin");
        Assert.Equal(upload, await landed.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task CustomPrefixes_RefusedRequest_IsProblemJsonWithoutUseFreightProblems()
    {
        await using var app = BuildApp(new(), services => services.AddFreightMemoryStore());
        app.MapFreightFiles("/api/blobs");
        app.MapFreightTus("/up");
        await app.StartAsync();
        using var client = new HttpClient { BaseAddress = new Uri(app.Urls.Single()) };

        // No Tus-Resumable header: tus answers 412, written by the endpoints' own problem handling.
        using var patch = new HttpRequestMessage(HttpMethod.Patch, "/up/0123456789abcdef0123456789abcdef") { Content = new ByteArrayContent([1]) };
        using var refused = await client.SendAsync(patch);

        await ProblemAssert.IsProblemAsync(refused, HttpStatusCode.PreconditionFailed);
    }

    [Fact]
    public async Task UseFreightProblems_RequestThatNeedsNoServices_GetsNoDiScopeAndErrorsStillAnswered()
    {
        // A request scope is created when something asks HttpContext.RequestServices; the whole app's problem handling
        // must not (it was 58 % of the bytes the server allocated per 4 KiB static file).
        await using var app = BuildApp(new(), services => services.AddFreightMemoryStore());
        app.UseFreightProblems();
        app.MapGet("/probe", context => context.Response.WriteAsync(context.Features.Get<IServiceProvidersFeature>() is null ? "no scope" : "scope"));
        app.MapGet("/fails", _ => throw new ProblemException(StatusCodes.Status409Conflict, "Conflict", "refused on purpose"));
        app.MapFreightFiles("/api/blobs");
        await app.StartAsync();
        using var client = new HttpClient { BaseAddress = new Uri(app.Urls.Single()) };

        Assert.Equal("no scope", await client.GetStringAsync("/probe"));
        using var failed = await client.GetAsync("/fails");
        await ProblemAssert.IsProblemAsync(failed, HttpStatusCode.Conflict);
        using var unknown = await client.GetAsync("/nowhere");
        await ProblemAssert.IsProblemAsync(unknown, HttpStatusCode.NotFound);
        // The files endpoints' own problem handling (their route group's), resolved the same way.
        using var put = new HttpRequestMessage(HttpMethod.Put, "/api/blobs/a.bin") { Content = new ByteArrayContent([1]) };
        put.Headers.IfMatch.Add(new EntityTagHeaderValue("\"not-it\""));
        using var refused = await client.SendAsync(put);
        await ProblemAssert.IsProblemAsync(refused, HttpStatusCode.PreconditionFailed);
    }

    [Fact]
    public async Task FreightResults_FileAndObject_AnswerWithoutADiScopeAndUseTheAppsCache()
    {
        // The results resolve the file cache and the files API's store from the app's services (their endpoint's
        // metadata), not from HttpContext.RequestServices, which would create a DI scope for every request.
        Directory.CreateDirectory(_root);
        var path = Path.Combine(_root, "small.bin");
        var bytes = RandomNumberGenerator.GetBytes(5000);
        await File.WriteAllBytesAsync(path, bytes);
        var scoped = new System.Collections.Concurrent.ConcurrentQueue<string>();
        await using var app = BuildApp(new(), services => services.AddFreightMemoryStore().AddSingleton(new FileCache()));
        app.Use(async (context, next) =>
        {
            await next(context);
            scoped.Enqueue($"{context.Request.Path}: {(context.Features.Get<IServiceProvidersFeature>() is null ? "no scope" : "scope")}");
        });
        app.MapGet("/my/file", () => FreightResults.File(path));
        app.MapGet("/my/object/{*key}", (string key) => FreightResults.Object(key));
        app.MapFreightFiles("/api/blobs");
        await app.StartAsync();
        using var client = new HttpClient { BaseAddress = new Uri(app.Urls.Single()) };
        using var put = await client.PutAsync("/api/blobs/stored.bin", new ByteArrayContent(bytes));
        Assert.Equal(HttpStatusCode.Created, put.StatusCode);

        Assert.Equal(bytes, await client.GetByteArrayAsync("/my/file"));
        Assert.Equal(bytes, await client.GetByteArrayAsync("/my/object/stored.bin"));
        using var missing = await client.GetAsync("/my/object/missing.bin");
        await ProblemAssert.IsProblemAsync(missing, HttpStatusCode.NotFound);

        // The middleware records a request once its endpoint has returned, which may be just after the client has read
        // the last byte: wait for all four (bounded).
        for (var waited = 0; scoped.Count < 4 && waited < 500; waited++)
        {
            await Task.Delay(10);
        }

        Assert.Contains("/my/file: no scope", scoped);
        Assert.Contains("/my/object/stored.bin: no scope", scoped);
        // The app's registered cache answered: it holds the small file now.
        Assert.NotNull(app.Services.GetRequiredService<FileCache>().TryGetFresh(path));
    }

    /// <summary>An app as a user writes it: files options from "Blobs", tus from "Up", the store from <paramref name="addStore"/>.</summary>
    private static WebApplication BuildApp(Dictionary<string, string?> settings, Action<IServiceCollection> addStore)
    {
        var builder = WebApplication.CreateBuilder();
        builder.Configuration.AddInMemoryCollection(settings);
        builder.Logging.ClearProviders();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Services.AddFreightFiles("Blobs");
        builder.Services.AddFreightTus("Up");
        addStore(builder.Services);
        return builder.Build();
    }
}
