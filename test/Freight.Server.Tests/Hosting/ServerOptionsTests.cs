using System.Net;
using Freight.Server.Hosting;
using Freight.Server.Tests.Infrastructure;
using Freight.Lab.Payload;
using Freight.Transport;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Freight.Server.Tests.Hosting;

/// <summary>
/// Options are validated at start with messages that name the option. <c>FREIGHT_</c> environment
/// variables are process-wide, so they are tested on the command in a child process (<see cref="ServeCommandTests"/>).
/// </summary>
public sealed class ServerOptionsTests : IDisposable
{
    private readonly string _dataDirectory = Path.Combine(Path.GetTempPath(), "freight-server-tests", Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_dataDirectory))
        {
            Directory.Delete(_dataDirectory, recursive: true);
        }
    }

    [Theory]
    [InlineData("--max-body-bytes", "0", "Freight:MaxRequestBodyBytes")]
    [InlineData("--max-body-bytes", "-1", "Freight:MaxRequestBodyBytes")]
    [InlineData("--urls", "ftp://x", "Freight:Urls")]
    [InlineData("--urls", "http://127.0.0.1:0/lab", "Freight:Urls")]
    [InlineData("--urls", "http://example.com:0", "Freight:Urls")]
    [InlineData("--urls", " ", "Freight:Urls")]
    [InlineData("--data-dir", " ", "Freight:DataDirectory")]
    [InlineData("--Freight:MaxLabPayloadBytes", "0", "Freight:MaxLabPayloadBytes")]
    [InlineData("--urls", "h2c://127.0.0.1", "Freight:Urls")]
    [InlineData("--Freight:Http2:InitialConnectionWindowBytes", "1000", "Freight:Http2:InitialConnectionWindowBytes")]
    [InlineData("--Freight:Http2:InitialStreamWindowBytes", "65534", "Freight:Http2:InitialStreamWindowBytes")]
    [InlineData("--Freight:Http2:MaxFrameBytes", "16383", "Freight:Http2:MaxFrameBytes")]
    [InlineData("--Freight:Http2:MaxFrameBytes", "16777216", "Freight:Http2:MaxFrameBytes")]
    [InlineData("--Freight:TransportBlockBytes", "100", "Freight:TransportBlockBytes")]
    [InlineData("--Freight:TransportBlockBytes", "2097152", "Freight:TransportBlockBytes")]
    [InlineData("--Freight:TransportBulkBlockBytes", "-1", "Freight:TransportBulkBlockBytes")]
    [InlineData("--Freight:TransportBulkBlockBytes", "8388608", "Freight:TransportBulkBlockBytes")]
    [InlineData("--Freight:TransportBulkBlocks", "-1", "Freight:TransportBulkBlocks")]
    [InlineData("--Freight:Multipart:MaxHeadersBytes", "10", "Freight:Multipart:MaxHeadersBytes")]
    [InlineData("--Freight:Tus:MaxUnfinishedUploadsPerClient", "0", "Freight:Tus:MaxUnfinishedUploadsPerClient")]
    [InlineData("--Freight:Tus:MaxPendingBytes", "-1", "Freight:Tus:MaxPendingBytes")]
    [InlineData("--Freight:Tus:MinFreeBytes", "-1", "Freight:Tus:MinFreeBytes")]
    [InlineData("--Kestrel:Limits:MaxRequestBodySize", "5", "Kestrel:Limits:MaxRequestBodySize")]
    [InlineData("--Kestrel:Limits:MinRequestBodyDataRate:BytesPerSecond", "5", "Kestrel:Limits:MinRequestBodyDataRate")]
    [InlineData("--Kestrel:Limits:Http2:MaxFrameSize", "20000", "Kestrel:Limits:Http2:MaxFrameSize")]
    [InlineData("--Kestrel:Limits:RequestHeaderTimeout", "00:00:05", "Kestrel:Limits:RequestHeaderTimeout")]
    [InlineData("--Kestrel:Limits:RequestHeadersTimeout", "soon", "Kestrel:Limits:RequestHeadersTimeout:")]
    [InlineData("--Kestrel:Limits:MinResponseDataRate:BytesPerSecond", "-3", "Kestrel:Limits:MinResponseDataRate")]
    [InlineData("--Freight:TrustedProxies:0", "proxy.example", "Freight:TrustedProxies:0")]
    [InlineData("--Freight:CorsOrigins:0", "app.example.com", "Freight:CorsOrigins:0")]
    [InlineData("--Freight:CorsOrigins:0", "https://app.example.com/upload", "Freight:CorsOrigins:0")]
    [InlineData("--Kestrel:Endpoints:Extra:Url", "http://127.0.0.1:0", "Kestrel:Endpoints")]
    [InlineData("--Kestrel:EndpointDefaults:Protocols", "Http2", "Kestrel:EndpointDefaults")]
    [InlineData("--Kestrel:Certificates:Other:Path", "/x.pem", "Kestrel:Certificates:Other")]
    [InlineData("--Kestrel:AddServerHeader", "true", "Kestrel:AddServerHeader")]
    [InlineData("--Freight:ShutdownTimeout", "-00:00:01", "Freight:ShutdownTimeout is -00:00:01: use 0 or")]
    public void Create_InvalidOption_ThrowsNamingTheOption(string option, string value, string named)
    {
        var invalid = Assert.Throws<OptionsValidationException>(() => FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory, option, value]));

        var failure = Assert.Single(invalid.Failures);
        Assert.StartsWith(named + " ", failure, StringComparison.Ordinal);
    }

    /// <summary>
    /// A typo is refused, not dropped: the host's command-line source took anything, so --datadir started the server on
    /// its defaults (the data in ./freight-data) and --Freigth:Lab changed nothing.
    /// </summary>
    [Theory]
    [InlineData("--datadir", "/tmp/elsewhere", "--datadir is not an option of serve")]
    [InlineData("--port", "9000", "--port is not an option of serve")]
    [InlineData("--Freigth:Lab", "false", "--Freigth:Lab is not an option of serve: it reads the sections Freight, Kestrel, Logging")]
    [InlineData("-x", "1", "-x is not an option of serve")]
    [InlineData("stray=1", "--Freight:Lab=false", "stray=1 is not an option of serve")]
    [InlineData("--Freight:Lab", "false", null)]
    [InlineData("--Kestrel:Limits:KeepAliveTimeout", "00:01:00", null)]
    [InlineData("--Logging:LogLevel:Default=Warning", "--urls=http://127.0.0.1:0", null)]
    [InlineData("--", "--Freight:Lab", null)]
    public async Task Create_ArgumentThatIsNoSetting_ThrowsNamingIt(string option, string value, string? failure)
    {
        string[] args = ["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory, option, value];
        if (failure is null)
        {
            await FreightServer.Create(args).DisposeAsync();
            return;
        }

        var invalid = Assert.Throws<OptionsValidationException>(() => FreightServer.Create(args));

        Assert.StartsWith(failure, Assert.Single(invalid.Failures), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Create_EndOfOptionsMarker_TheKeyAfterItStillBinds()
    {
        await using var server = FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory, "--", "--Freight:MaxLabPayloadBytes", "1000"]);

        Assert.Equal(1000, server.Options.MaxLabPayloadBytes);
    }

    [Theory]
    [InlineData("--max-body-bytes", "lots", "Freight:MaxRequestBodyBytes")]
    [InlineData("--fsync", "maybe", "Freight:FlushToDisk")]
    [InlineData(
        "--Freight:Multipart:MaxHeadersBytes",
        "0",
        "Freight:Multipart:MaxHeadersBytes")]
    public void Create_UnconvertibleOption_ThrowsNamingTheOption(string option, string value, string named)
    {
        var invalid = Assert.Throws<OptionsValidationException>(() => FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory, option, value]));

        Assert.Contains(named, Assert.Single(invalid.Failures), StringComparison.Ordinal);
    }

    /// <summary>
    /// The binder takes a list only from indexed keys and dropped a value given on the list's own key without a word:
    /// --Freight:Files:WriteTokens TOKEN started the files API with no token, open to every client.
    /// </summary>
    [Theory]
    [InlineData("--Freight:Files:WriteTokens", "wtok", "Freight:Files:WriteTokens is a list: give each token with an index, --Freight:Files:WriteTokens:0 TOKEN, or FREIGHT_Files__WriteTokens__0=TOKEN (a JSON array in appsettings.json).")]
    [InlineData("--Freight:Files:ReadTokens", "rtok", "Freight:Files:ReadTokens is a list: give each token with an index, --Freight:Files:ReadTokens:0 TOKEN, or FREIGHT_Files__ReadTokens__0=TOKEN (a JSON array in appsettings.json).")]
    [InlineData("--Freight:TrustedProxies", "127.0.0.1", "Freight:TrustedProxies is a list: give each proxy with an index, --Freight:TrustedProxies:0 PROXY, or FREIGHT_TrustedProxies__0=PROXY (a JSON array in appsettings.json).")]
    [InlineData("--Freight:CorsOrigins", "https://app.example.com", "Freight:CorsOrigins is a list: give each origin with an index, --Freight:CorsOrigins:0 ORIGIN, or FREIGHT_CorsOrigins__0=ORIGIN (a JSON array in appsettings.json).")]
    [InlineData("--Freight:Http2", "5", "Freight:Http2 holds settings, not a value: set its keys, e.g. --Freight:Http2:InitialConnectionWindowBytes VALUE.")]
    [InlineData("--Freight:Lab:Enabled", "false", "Freight:Lab:Enabled is not a setting: Freight:Lab takes one value, with no keys below it.")]
    public void Create_SettingOfTheWrongShape_ThrowsSayingHowToGiveIt(string option, string value, string failure)
    {
        var invalid = Assert.Throws<OptionsValidationException>(() => FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory, option, value]));

        Assert.Equal(failure, Assert.Single(invalid.Failures));
    }

    /// <summary>
    /// A key no option binds is refused by name, with the key it is likely a typo of. The Freight section's keys are
    /// serve's options and, below Files, Tus and S3, the library's; the binder dropped any other, so
    /// --Freight:Files:WriteToken T started an open server, and --Freight:MaxRequestBodyByte 10 kept 4 GiB.
    /// </summary>
    [Theory]
    [InlineData("--Freight:MaxRequestBodyByte", "10", "Freight:MaxRequestBodyByte is not an option of serve (did you mean Freight:MaxRequestBodyBytes?)")]
    [InlineData("--Freight:Fils:WriteTokens:0", "x", "Freight:Fils is not an option of serve (did you mean Freight:Files?)")]
    [InlineData("--Freight:Files:WriteTokenz:0", "x", "Freight:Files:WriteTokenz is not an option of serve (did you mean Freight:Files:WriteTokens?)")]
    [InlineData("--Freight:Files:WriteToken", "wtok", "Freight:Files:WriteToken is not an option of serve (did you mean Freight:Files:WriteTokens?)")]
    [InlineData("--Freight:Files:MaxFileByte", "10", "Freight:Files:MaxFileByte is not an option of serve (did you mean Freight:Files:MaxFileBytes?)")]
    [InlineData("--Freight:Tus:MaxUploadByte", "10", "Freight:Tus:MaxUploadByte is not an option of serve (did you mean Freight:Tus:MaxUploadBytes?)")]
    [InlineData("--Freight:S3:Buckett", "b", "Freight:S3:Buckett is not an option of serve (did you mean Freight:S3:Bucket?)")]
    [InlineData("--Freight:FilesDirectory", "/tmp/x", "Freight:FilesDirectory is not an option of serve: docs/server.md lists them.")]
    [InlineData("--Freight:Colour", "blue", "Freight:Colour is not an option of serve: docs/server.md lists them.")]
    [InlineData("--Kestrel:Limits:KeepAliveTimout", "00:01:00", "Kestrel:Limits:KeepAliveTimout is not a Kestrel limit (did you mean KeepAliveTimeout?)")]
    [InlineData("--Kestrel:Limits:Http2:MaxStreamPerConnection", "5", "Kestrel:Limits:Http2:MaxStreamPerConnection is not a Kestrel limit (did you mean Http2:MaxStreamsPerConnection?)")]
    public void Create_KeyNoOptionBinds_ThrowsNamingItAndTheLikelyKey(string option, string value, string failure)
    {
        var invalid = Assert.Throws<OptionsValidationException>(() => FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory, option, value]));

        Assert.Equal(failure, Assert.Single(invalid.Failures));
    }

    /// <summary>A typo in a section's name is one failure for the section, not one per key below it.</summary>
    [Fact]
    public void Create_SectionNoOptionBinds_ThrowsOnceNamingItAndTheLikelySection()
    {
        var invalid = Assert.Throws<OptionsValidationException>(() => FreightServer.Create(
            ["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory, "--Freight:Filez:WriteTokens:0", "T", "--Freight:Filez:ReadTokens:0", "R", "--Freight:Filez:MaxFileBytes", "10"]));

        Assert.Equal("Freight:Filez is not an option of serve (did you mean Freight:Files?)", Assert.Single(invalid.Failures));
    }

    [Fact]
    public async Task Create_KeysOfTheLibrarysOptions_AreNotRefused()
    {
        await using var server = FreightServer.Create(
        [
            "--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory, "--Freight:Files:MaxFileBytes", "10", "--Freight:Tus:MaxUploadBytes", "10",
            "--Freight:Files:Directory", Path.Combine(_dataDirectory, "f"), "--Freight:FileCache:MaxOpenFiles", "3",
        ]);

        Assert.Equal(10, server.App.Services.GetRequiredService<Freight.AspNetCore.Files.FilesOptions>().MaxFileBytes);
    }

    /// <summary>
    /// Freight:S3 counts only with the S3 store: on any other its keys went unused without a word, and --s3-bucket
    /// without --store s3 served from the file system. One line names them and the setting that makes them count.
    /// </summary>
    [Theory]
    [InlineData(new[] { "--s3-bucket", "files" }, "Freight:S3:Bucket is set, but the store is FileSystem: Freight:S3 settings count only with Freight:Files:Store S3 (--store s3).")]
    [InlineData(new[] { "--store", "Memory", "--Freight:S3:Endpoint", "http://127.0.0.1:7480", "--Freight:S3:PathStyle", "true" }, "Freight:S3:Endpoint, Freight:S3:PathStyle are set, but the store is Memory: Freight:S3 settings count only with Freight:Files:Store S3 (--store s3).")]
    public void Create_S3SettingsWithAnotherStore_ThrowsOneFailureNamingThem(string[] options, string failure)
    {
        // Create's failures are serve's error: lines, exit 2 (RunAsync_InvalidOptions_Returns2AndPrintsEachErrorToStderr).
        var invalid = Assert.Throws<OptionsValidationException>(() => FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory, .. options]));

        Assert.Equal(failure, Assert.Single(invalid.Failures));
    }

    [Theory]
    [InlineData("--store", "s3", "--Freight:S3:AccessKey", "a", "--Freight:S3:SecretKey", "s")]
    [InlineData("--store", "Memory", "--s3-endpoint", "", "--s3-bucket", "")]
    public async Task Create_S3SettingsWithTheS3StoreOrBlanked_AreNotRefused(params string[] options)
    {
        await using var server = FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory, "--s3-endpoint", "http://127.0.0.1:7480", "--s3-bucket", "files", .. options]);
    }

    [Fact]
    public async Task Create_IndexedTokens_BindAndGuardTheFilesApi()
    {
        await using var server = FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory, "--Freight:Files:WriteTokens:0", "wtok"]);

        Assert.Equal(["wtok"], server.App.Services.GetRequiredService<Freight.AspNetCore.Files.FilesOptions>().WriteTokens);
    }

    /// <summary>A value that does not convert says the key, the value and what it must be, not the binder's .NET type names.</summary>
    [Theory]
    [InlineData("--max-body-bytes", "1GiB", "Freight:MaxRequestBodyBytes: '1GiB' is not a whole number of bytes.")]
    [InlineData("--fsync", "yes", "Freight:FlushToDisk: 'yes' is not true or false.")]
    [InlineData("--Freight:Lab", "flase", "Freight:Lab: 'flase' is not true or false.")]
    [InlineData("--Freight:TransportBlockBytes", "99999999999", "Freight:TransportBlockBytes: '99999999999' is too large: at most 2147483647.")]
    [InlineData("--Freight:Files:MaxConcurrentUploadsPerClient", "many", "Freight:Files:MaxConcurrentUploadsPerClient: 'many' is not a whole number.")]
    [InlineData("--Freight:Files:MinUploadBytesPerSecond", "fast", "Freight:Files:MinUploadBytesPerSecond: 'fast' is not a number.")]
    [InlineData("--Freight:Tus:ExpireAfter", "1day", "Freight:Tus:ExpireAfter: '1day' is not a time span: hh:mm:ss, or d.hh:mm:ss (00:00:30 is 30 seconds).")]
    [InlineData("--Freight:S3:PathStyle", "on", "Freight:S3:PathStyle: 'on' is not true or false.")]
    [InlineData("--Kestrel:Limits:MaxRequestLineSize", "8k", "Kestrel:Limits:MaxRequestLineSize: '8k' is not a whole number of bytes.")]
    [InlineData("--Kestrel:Limits:MinResponseDataRate:BytesPerSecond", "slow", "Kestrel:Limits:MinResponseDataRate:BytesPerSecond: 'slow' is not a number.")]
    public void Create_ValueThatDoesNotConvert_ThrowsSayingWhatTheKeyTakes(string option, string value, string failure)
    {
        var invalid = Assert.Throws<OptionsValidationException>(() => FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory, option, value]));

        Assert.Equal(failure, Assert.Single(invalid.Failures));
    }

    /// <summary>A log level the host does not know threw its InvalidOperationException, stack and all, instead of naming the key.</summary>
    [Theory]
    [InlineData("--Logging:LogLevel:Default", "Informaton", "Logging:LogLevel:Default: 'Informaton' is not a log level (Trace, Debug, Information, Warning, Error, Critical, None).")]
    [InlineData("--Logging:Console:LogLevel:Freight", "Verbose", "Logging:Console:LogLevel:Freight: 'Verbose' is not a log level (Trace, Debug, Information, Warning, Error, Critical, None).")]
    public void Create_UnknownLogLevel_ThrowsNamingTheKeyAndTheLevels(string option, string value, string failure)
    {
        var invalid = Assert.Throws<OptionsValidationException>(() => FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory, option, value]));

        Assert.Equal(failure, Assert.Single(invalid.Failures));
    }

    [Fact]
    public async Task Create_LogLevelInAnyCase_Starts()
    {
        await using var server = FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory, "--Logging:LogLevel:Default", "information", "--Logging:Console:LogLevel:Freight", "Debug"]);
    }

    [Fact]
    public void Create_SeveralInvalidOptions_ListsEveryOne()
    {
        var invalid = Assert.Throws<OptionsValidationException>(() => FreightServer.Create(["--urls", "ftp://x;http://127.0.0.1:0;gopher://y", "--max-body-bytes", "0", "--data-dir", _dataDirectory]));

        Assert.Equal(3, invalid.Failures.Count());
        Assert.Equal(2, invalid.Failures.Count(f => f.StartsWith("Freight:Urls has 'ftp://x'", StringComparison.Ordinal) || f.StartsWith("Freight:Urls has 'gopher://y'", StringComparison.Ordinal)));
        Assert.Single(invalid.Failures, f => f.StartsWith("Freight:MaxRequestBodyBytes ", StringComparison.Ordinal));
    }

    [Fact]
    public async Task RunAsync_InvalidOptions_Returns2AndPrintsEachErrorToStderr()
    {
        using var output = new StringWriter();
        using var error = new StringWriter();

        var exitCode = await FreightServer.RunAsync(["--urls", "ftp://x", "--max-body-bytes", "0", "--data-dir", _dataDirectory], output, error);

        Assert.Equal(2, exitCode);
        Assert.Equal("", output.ToString());
        var lines = error.ToString().Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(2, lines.Length);
        Assert.All(lines, l => Assert.StartsWith("error: Freight:", l, StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("--help")]
    [InlineData("-h")]
    public async Task ServeCommand_Help_ListsEverySwitchAndServesNothing(string help)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        var root = new System.CommandLine.RootCommand { ServeCommand.Create(() => [help], output, error) };

        var exitCode = await root.Parse(["serve", help]).InvokeAsync(new System.CommandLine.InvocationConfiguration { Output = output, Error = error });

        Assert.Equal(0, exitCode);
        Assert.Equal(FreightConfiguration.SwitchMappings.Keys.Order(StringComparer.Ordinal), ServeCommand.SwitchNames.Order(StringComparer.Ordinal));
        Assert.All(FreightConfiguration.SwitchMappings.Keys, name => Assert.Contains(name, output.ToString(), StringComparison.Ordinal));
        Assert.DoesNotContain(output.ToString().Split(Environment.NewLine), line => line.StartsWith("listening:", StringComparison.Ordinal));
        Assert.Equal("", error.ToString());
    }

    [Fact]
    public async Task Create_FreightKeyOnCommandLine_BindsTheOption()
    {
        await using var server = FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory, "--Freight:MaxLabPayloadBytes", "1000"]);
        await server.StartAsync();
        using var client = new HttpClient { BaseAddress = new Uri(server.Urls.Single()) };

        using var atLimit = await client.GetAsync(new Uri("/lab/download/bytes?size=1000", UriKind.Relative));
        using var overLimit = await client.GetAsync(new Uri("/lab/download/bytes?size=1001", UriKind.Relative));

        Assert.Equal(1000, server.Options.MaxLabPayloadBytes);
        Assert.Equal(HttpStatusCode.OK, atLimit.StatusCode);
        await ProblemAssert.IsProblemAsync(overLimit, HttpStatusCode.BadRequest);
    }

    /// <summary>A server that only moves files turns the lab off: no /lab route answers, nothing of the lab's is written, the files API serves.</summary>
    [Fact]
    public async Task Create_LabOff_NoLabRouteAndNoLabFilesAndTheFilesApiServes()
    {
        await using var server = FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory, "--Freight:Lab", "false"]);
        await server.StartAsync();
        using var client = new HttpClient { BaseAddress = new Uri(server.Urls.Single()) };
        var content = Payloads.Bytes(70_000);

        using var ping = await client.GetAsync(new Uri("/lab/ping", UriKind.Relative));
        using var labFile = await client.GetAsync(new Uri("/lab/static/freight/4096.bin", UriKind.Relative));
        using var put = await client.PutAsync(new Uri("/files/a/b.bin", UriKind.Relative), new ByteArrayContent(content));
        var stored = await client.GetByteArrayAsync(new Uri("/files/a/b.bin", UriKind.Relative));

        await ProblemAssert.IsProblemAsync(ping, HttpStatusCode.NotFound);
        await ProblemAssert.IsProblemAsync(labFile, HttpStatusCode.NotFound);
        Assert.Equal(HttpStatusCode.Created, put.StatusCode);
        Assert.Equal(content, stored);
        Assert.False(Directory.Exists(Path.Combine(_dataDirectory, "lab")), "the lab's files were written");
    }

    /// <summary>
    /// Kestrel's own limits are set from the Kestrel:Limits section, which ASP.NET Core leaves unbound by default: a request
    /// line past a lowered <c>MaxRequestLineSize</c> gets Kestrel's 414 on the wire, one within it is served.
    /// </summary>
    [Fact]
    public async Task Create_KestrelLimitsOnCommandLine_KestrelEnforcesThem()
    {
        await using var server = FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory,
            "--Kestrel:Limits:MaxRequestLineSize", "100", "--Kestrel:Limits:MinResponseDataRate:BytesPerSecond", "100",
            "--Kestrel:Limits:MinResponseDataRate:GracePeriod", "00:00:10"]);
        await server.StartAsync();
        var address = new Uri(server.Urls.Single());

        var tooLong = await Files.FilesApi.RawAsync(address, RawHttpConnection.Head("GET", address, "/files/" + new string('x', 100)));
        var served = await Files.FilesApi.RawAsync(address, RawHttpConnection.Head("GET", address, "/lab/ping"));

        Assert.Equal(414, tooLong.StatusCode);
        Assert.Equal(200, served.StatusCode);
        var limits = server.App.Services.GetRequiredService<IOptions<KestrelServerOptions>>().Value.Limits;
        Assert.Equal(100, limits.MinResponseDataRate?.BytesPerSecond);
        Assert.Equal(TimeSpan.FromSeconds(10), limits.MinResponseDataRate?.GracePeriod);
    }

    [Theory]
    [InlineData(new string[0], 256 * 1024, 1024 * 1024, 32)]
    [InlineData(new[] { "--Freight:TransportBulkBlockBytes", "0" }, 256 * 1024, 0, 0)]
    [InlineData(new[] { "--Freight:TransportBlockBytes", "1048576" }, 1024 * 1024, 0, 0)]
    [InlineData(new[] { "--Freight:TransportBulkBlockBytes", "4194304", "--Freight:TransportBulkBlocks", "2" }, 256 * 1024, 4 * 1024 * 1024, 2)]
    public async Task TransportBlocks_ReachKestrelsMemoryPoolFactory(string[] options, int blockSize, int bulkBlockSize, int bulkBlocks)
    {
        await using var server = FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory, .. options]);

        using var pool = Assert.IsType<LargeBlockMemoryPool>(server.App.Services.GetRequiredService<IMemoryPoolFactory<byte>>().Create());

        Assert.Equal(blockSize, pool.BlockSize);
        Assert.Equal(bulkBlockSize, pool.BulkBlockSize);
        Assert.Equal(bulkBlocks, pool.BulkBlocks);
    }

    [Fact]
    public async Task TransportBlocks_StockPoolWithBulkBlocksSet_StartsWithKestrelsOwnPool()
    {
        await using var server = FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory, "--Freight:TransportBlockBytes", "0", "--Freight:TransportBulkBlockBytes", "1048576"]);

        Assert.IsNotType<LargeBlockMemoryPoolFactory>(server.App.Services.GetService<IMemoryPoolFactory<byte>>());
    }

    /// <summary>
    /// More connections at once than bulk blocks (8 uploads, a client's most, then 8 downloads, against 2): some receive
    /// and send through bulk blocks, the rest through blocks of the usual size, and blocks of both sizes pass from one
    /// connection to another. Every byte still round-trips.
    /// </summary>
    [Fact]
    public async Task TransportBulkBlocks_FewerThanTheConnections_EveryFileRoundTrips()
    {
        await using var server = FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory, "--Freight:TransportBulkBlocks", "2"]);
        await server.StartAsync();
        using var handler = new SocketsHttpHandler { MaxConnectionsPerServer = 8 };
        using var client = new HttpClient(handler) { BaseAddress = new Uri(server.Urls.Single()) };
        var contents = Enumerable.Range(0, 8).Select(i => DeterministicPayload.Create((3 * 1024 * 1024) + (i * 4099), seed: (ulong)(211 + i))).ToList();

        var statuses = await Task.WhenAll(contents.Select(async (content, i) =>
        {
            using var put = await client.PutAsync(new Uri($"/files/bulk/{i}.bin", UriKind.Relative), new ByteArrayContent(content));
            return put.StatusCode;
        }));
        Assert.All(statuses, status => Assert.Equal(HttpStatusCode.Created, status));
        var stored = await Task.WhenAll(contents.Select((_, i) => client.GetByteArrayAsync(new Uri($"/files/bulk/{i}.bin", UriKind.Relative))));

        for (var i = 0; i < contents.Count; i++)
        {
            Assert.True(contents[i].AsSpan().SequenceEqual(stored[i]), $"file {i} came back different");
        }
    }

    [Theory]
    [InlineData(null, false)]
    [InlineData("true", true)]
    public async Task InlineScheduling_ReachesKestrelsTransport_AndFilesRoundTrip(string? value, bool expected)
    {
        string[] args = ["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory];
        await using var server = FreightServer.Create(value is null ? args : [.. args, "--Freight:InlineScheduling", value]);
        await server.StartAsync();
        using var client = new HttpClient { BaseAddress = new Uri(server.Urls.Single()) };
        var content = Payloads.Bytes(3 * 1024 * 1024 + 7);

        using var put = await client.PutAsync(new Uri("/files/inline/a.bin", UriKind.Relative), new ByteArrayContent(content));
        var stored = await client.GetByteArrayAsync(new Uri("/files/inline/a.bin", UriKind.Relative));

        Assert.Equal(expected, server.App.Services.GetRequiredService<IOptions<SocketTransportOptions>>().Value.UnsafePreferInlineScheduling);
        Assert.Equal(HttpStatusCode.Created, put.StatusCode);
        Assert.Equal(content, stored);
    }

    [Fact]
    public async Task StartAsync_AbandonedTempFileInDataDirectory_DeletesIt()
    {
        var abandoned = Path.Combine(_dataDirectory, "lab", "uploads", ".freight.bin.0123456789abcdef.freight-tmp");
        Directory.CreateDirectory(Path.GetDirectoryName(abandoned)!);
        await File.WriteAllBytesAsync(abandoned, Payloads.Bytes(100));
        await using var server = FreightServer.Create(["--urls", "http://127.0.0.1:0", "--data-dir", _dataDirectory]);

        await server.StartAsync();

        Assert.False(File.Exists(abandoned));
    }
}
