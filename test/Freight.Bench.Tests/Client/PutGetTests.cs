using System.Net;
using Freight.Bench.Client;
using Freight.Digests;

namespace Freight.Bench.Tests.Client;

/// <summary><c>freight put</c> and <c>freight get</c> against the real files API of <c>freight serve</c>.</summary>
public sealed class PutGetTests(OpenFilesServer server) : IClassFixture<OpenFilesServer>
{
    // Three 1 MiB client buffers and an odd tail: several reads and writes per transfer, none aligned.
    private const int PayloadBytes = (3 * 1024 * 1024) + 12345;

    [Fact]
    public async Task PutThenGet_RoundTrip_BytesAndSha256Equal()
    {
        var bytes = TestFiles.Bytes(PayloadBytes, seed: 1);
        var source = server.Local("round.bin");
        await File.WriteAllBytesAsync(source, bytes);
        var url = server.Url("round/trip.bin");

        var put = await ClientRun.PutAsync(source, url);
        var target = server.Local("round.copy");
        var get = await ClientRun.GetAsync(url, target);

        put.AssertExit(0);
        Assert.Equal("", put.Error);
        Assert.StartsWith($"stored: {url} etag=\"", put.Output, StringComparison.Ordinal);
        Assert.Contains($" sha-256={TestFiles.Sha256Hex(bytes)} {PayloadBytes} bytes in ", put.Output, StringComparison.Ordinal);
        get.AssertExit(0);
        Assert.Equal("", get.Error);
        Assert.StartsWith($"saved: {target} etag=\"", get.Output, StringComparison.Ordinal);
        Assert.Contains($" sha-256 verified, {PayloadBytes} bytes in ", get.Output, StringComparison.Ordinal);
        Assert.Equal(bytes, await File.ReadAllBytesAsync(target));
        Assert.False(File.Exists(target + ".partial"));
        Assert.False(File.Exists(target + ".partial.etag"));
    }

    [Fact]
    public async Task PutThenGet_OneByteFile_SayOneByte()
    {
        var source = server.Local("one.bin");
        await File.WriteAllBytesAsync(source, [42]);
        var url = server.Url("one.bin");

        var put = await ClientRun.PutAsync(source, url);
        var get = await ClientRun.GetAsync(url, server.Local("one.copy"));

        put.AssertExit(0);
        Assert.Contains(" 1 byte in ", put.Output, StringComparison.Ordinal);
        get.AssertExit(0);
        Assert.Contains(" sha-256 verified, 1 byte in ", get.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task PutAndGet_StderrNotATerminal_WriteNoControlCharacters()
    {
        var source = server.Local("quiet.bin");
        await File.WriteAllBytesAsync(source, TestFiles.Bytes(PayloadBytes, seed: 2));
        var url = server.Url("quiet.bin");

        var put = await ClientRun.PutAsync(source, url);
        var get = await ClientRun.GetAsync(url, server.Local("quiet.copy"));

        put.AssertExit(0);
        get.AssertExit(0);
        Assert.False(put.HasControlCharacters);
        Assert.False(get.HasControlCharacters);
        Assert.Single(put.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Single(get.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries));
    }

    [Fact]
    public async Task Put_JsonFile_IsServedAsApplicationJson()
    {
        var source = server.Local("settings.json");
        await File.WriteAllTextAsync(source, """{"answer":42}""");
        var url = server.Url("settings.json");

        var put = await ClientRun.PutAsync(source, url);
        using var http = new HttpClient();
        using var response = await http.GetAsync(url);

        put.AssertExit(0);
        Assert.Equal("application/json", response.Content.Headers.ContentType?.MediaType);
        Assert.Equal("""{"answer":42}""", await response.Content.ReadAsStringAsync());
    }

    [Fact]
    public async Task Put_Existing_ReplacesIt()
    {
        var source = server.Local("replace.bin");
        var url = server.Url("replace.bin");
        await File.WriteAllBytesAsync(source, TestFiles.Bytes(1000, seed: 3));
        (await ClientRun.PutAsync(source, url)).AssertExit(0);
        var second = TestFiles.Bytes(2000, seed: 4);
        await File.WriteAllBytesAsync(source, second);

        var put = await ClientRun.PutAsync(source, url);
        var get = await ClientRun.GetAsync(url, server.Local("replace.copy"));

        put.AssertExit(0);
        Assert.Contains($"sha-256={TestFiles.Sha256Hex(second)} 2000 bytes", put.Output, StringComparison.Ordinal);
        get.AssertExit(0);
        Assert.Equal(second, await File.ReadAllBytesAsync(server.Local("replace.copy")));
    }

    [Fact]
    public async Task Put_IfNoneMatchOnExisting_Exits1With412AndKeepsTheOld()
    {
        var source = server.Local("once.bin");
        var url = server.Url("once.bin");
        var first = TestFiles.Bytes(5000, seed: 5);
        await File.WriteAllBytesAsync(source, first);
        var create = await ClientRun.PutAsync(source, url, "--if-none-match");
        await File.WriteAllBytesAsync(source, TestFiles.Bytes(5000, seed: 6));

        var again = await ClientRun.PutAsync(source, url, "--if-none-match");

        create.AssertExit(0);
        again.AssertExit(1);
        Assert.StartsWith($"error: {url}: HTTP 412", again.Error, StringComparison.Ordinal);
        Assert.Equal("", again.Output);
        (await ClientRun.GetAsync(url, server.Local("once.copy"))).AssertExit(0);
        Assert.Equal(first, await File.ReadAllBytesAsync(server.Local("once.copy")));
    }

    [Fact]
    public async Task Put_WrongContentDigest_ServerAnswers400AndStoresNothing()
    {
        var bytes = TestFiles.Bytes(PayloadBytes, seed: 7);
        var source = server.Local("corrupt.bin");
        await File.WriteAllBytesAsync(source, bytes);
        var url = server.Url("corrupt.bin");
        var options = ClientCommand.Parse(TransferVerb.Put, [source, url], out _)!;
        // The digest of other bytes of the same length: what a file changed after hashing would send.
        var flipped = (byte[])bytes.Clone();
        flipped[PayloadBytes / 2] ^= 0xFF;
        using var wrong = new StreamingDigests([DigestAlgorithm.Sha256]);
        wrong.Append(flipped);
        using var http = new HttpClient();
        var output = new StringWriter();
        var error = new StringWriter();

        var exitCode = await PutCommand.SendAsync(http, options, wrong.Complete(), output, error, interactive: false, CancellationToken.None);

        Assert.Equal(1, exitCode);
        Assert.StartsWith($"error: {url}: HTTP 400", error.ToString(), StringComparison.Ordinal);
        Assert.Equal("", output.ToString());
        using var response = await http.GetAsync(url);
        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
    }

    [Fact]
    public async Task Get_PartialWithCurrentETag_AsksForTheRestAndAppends()
    {
        var bytes = TestFiles.Bytes(PayloadBytes, seed: 8);
        var url = await StoreAsync("resume.bin", bytes);
        var target = server.Local("resume.copy");
        var half = PayloadBytes / 2;
        await File.WriteAllBytesAsync(target + ".partial", bytes[..half]);
        await File.WriteAllTextAsync(target + ".partial.etag", (await TestFiles.ETagAsync(url)).ToString());

        var get = await ClientRun.GetAsync(url, target);

        get.AssertExit(0);
        Assert.Equal("", get.Error);
        Assert.Contains($" sha-256 verified, {PayloadBytes - half} bytes in ", get.Output, StringComparison.Ordinal);
        Assert.EndsWith($", resumed at byte {half}\n", get.Output.ReplaceLineEndings("\n"), StringComparison.Ordinal);
        Assert.Equal(bytes, await File.ReadAllBytesAsync(target));
        Assert.False(File.Exists(target + ".partial"));
        Assert.False(File.Exists(target + ".partial.etag"));
    }

    [Fact]
    public async Task Get_PartialWithOldETag_ServerSendsAllAndClientStartsOver()
    {
        var bytes = TestFiles.Bytes(PayloadBytes, seed: 9);
        var url = await StoreAsync("changed.bin", bytes);
        var target = server.Local("changed.copy");
        // The first half of an older version of the file, under that version's ETag.
        await File.WriteAllBytesAsync(target + ".partial", TestFiles.Bytes(PayloadBytes / 2, seed: 10));
        await File.WriteAllTextAsync(target + ".partial.etag", "\"an-older-version\"");

        var get = await ClientRun.GetAsync(url, target);

        get.AssertExit(0);
        Assert.Contains("(If-Range did not match): starting over.", get.Error, StringComparison.Ordinal);
        Assert.Contains($" sha-256 verified, {PayloadBytes} bytes in ", get.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("resumed", get.Output, StringComparison.Ordinal);
        Assert.Equal(bytes, await File.ReadAllBytesAsync(target));
    }

    [Fact]
    public async Task Get_PartialAlreadyWhole_StartsOverAfter416()
    {
        var bytes = TestFiles.Bytes(10_000, seed: 11);
        var url = await StoreAsync("whole.bin", bytes);
        var target = server.Local("whole.copy");
        await File.WriteAllBytesAsync(target + ".partial", bytes);
        await File.WriteAllTextAsync(target + ".partial.etag", (await TestFiles.ETagAsync(url)).ToString());

        var get = await ClientRun.GetAsync(url, target);

        get.AssertExit(0);
        Assert.Contains("has no bytes from 10000 on (416): starting over.", get.Error, StringComparison.Ordinal);
        Assert.Contains(" sha-256 verified, 10000 bytes in ", get.Output, StringComparison.Ordinal);
        Assert.Equal(bytes, await File.ReadAllBytesAsync(target));
    }

    [Fact]
    public async Task PutThenGet_EmptyFile_SavesAnEmptyFile()
    {
        var source = server.Local("empty.bin");
        await File.WriteAllBytesAsync(source, []);
        var url = server.Url("empty.bin");

        var put = await ClientRun.PutAsync(source, url);
        var get = await ClientRun.GetAsync(url, server.Local("empty.copy"));

        put.AssertExit(0);
        Assert.Contains($"sha-256={TestFiles.Sha256Hex([])} 0 bytes in ", put.Output, StringComparison.Ordinal);
        get.AssertExit(0);
        Assert.Contains(" sha-256 verified, 0 bytes in ", get.Output, StringComparison.Ordinal);
        Assert.Empty(await File.ReadAllBytesAsync(server.Local("empty.copy")));
    }

    [Fact]
    public async Task Get_Missing_Exits1WithTheProblemAndLeavesNoFile()
    {
        var target = server.Local("missing.copy");

        var get = await ClientRun.GetAsync(server.Url("no/such/file.bin"), target);

        get.AssertExit(1);
        Assert.StartsWith($"error: {server.Url("no/such/file.bin")}: HTTP 404", get.Error, StringComparison.Ordinal);
        Assert.Equal("", get.Output);
        Assert.False(File.Exists(target));
        Assert.False(File.Exists(target + ".partial"));
    }

    [Fact]
    public async Task PutAndGet_HttpsWithThePinnedCertificate_Succeed()
    {
        var bytes = TestFiles.Bytes(100_000, seed: 12);
        var source = server.Local("tls.bin");
        await File.WriteAllBytesAsync(source, bytes);
        var url = server.Url("tls.bin", https: true);

        var put = await ClientRun.PutAsync(source, url, "--certificate-sha256", server.CertificateSha256);
        var get = await ClientRun.GetAsync(url, server.Local("tls.copy"), "--certificate-sha256", server.CertificateSha256);

        put.AssertExit(0);
        get.AssertExit(0);
        Assert.Equal(bytes, await File.ReadAllBytesAsync(server.Local("tls.copy")));
    }

    [Fact]
    public async Task Get_HttpsWithAnotherPin_Exits1()
    {
        var url = await StoreAsync("pinned.bin", TestFiles.Bytes(100, seed: 13));
        var https = url.Replace(server.HttpAddress.ToString(), server.HttpsAddress.ToString(), StringComparison.Ordinal);

        var get = await ClientRun.GetAsync(https, server.Local("pinned.copy"), "--certificate-sha256", new string('a', 64));

        get.AssertExit(1);
        Assert.Equal($"error: {https}: the server's certificate is not the one pinned by --certificate-sha256", get.Error.Trim());
        Assert.False(File.Exists(server.Local("pinned.copy")));
    }

    [Fact]
    public async Task Get_HttpsWithoutAPin_Exits1SayingHowToPin()
    {
        var url = await StoreAsync("unpinned.bin", TestFiles.Bytes(100, seed: 14));
        var https = url.Replace(server.HttpAddress.ToString(), server.HttpsAddress.ToString(), StringComparison.Ordinal);

        var get = await ClientRun.GetAsync(https, server.Local("unpinned.copy"));

        get.AssertExit(1);
        Assert.Equal($"error: {https}: the server's certificate is not trusted here: pin it with --certificate-sha256 HEX (freight serve prints it as certificate-sha256)", get.Error.Trim());
        Assert.False(File.Exists(server.Local("unpinned.copy")));
    }

    private async Task<string> StoreAsync(string name, byte[] bytes)
    {
        var source = server.Local(name + ".source");
        await File.WriteAllBytesAsync(source, bytes);
        var url = server.Url(name);
        var put = await ClientRun.PutAsync(source, url);
        put.AssertExit(0);
        return url;
    }
}
