using System.Net;
using System.Security.Cryptography;
using System.Text.Json;
using static Freight.Server.Tests.Files.FilesApi;
using static Freight.Server.Tests.Tus.TusApi;

namespace Freight.Server.Tests.Tus;

/// <summary>Freight:Tus:FilesPrefix: finished uploads land in that folder of the files API, named or not.</summary>
public sealed class TusPrefixTests(PrefixTusServer server) : IClassFixture<PrefixTusServer>
{
    private static readonly byte[] s_content = Content(200_000, seed: 171);

    [Fact]
    public async Task Upload_WithFilename_LandsUnderThePrefix()
    {
        var name = NewFileName();
        var path = await CreateAsync(server, s_content.Length, name);

        var location = await PatchAllAsync(server, path, s_content, 100_000);

        Assert.Equal($"/files/{PrefixTusServer.Prefix}/{name}", location);
        await AssertFileAsync(server, $"{PrefixTusServer.Prefix}/{name}", s_content);
        await AssertNoFileAsync(server, name);
    }

    [Fact]
    public async Task Upload_WithoutFilename_LandsUnderThePrefixNamedAfterTheUpload()
    {
        var path = await CreateAsync(server, s_content.Length);

        var location = await PatchAllAsync(server, path, s_content, s_content.Length);

        Assert.Equal($"/files/{PrefixTusServer.Prefix}/{Id(path)}", location);
        await AssertFileAsync(server, $"{PrefixTusServer.Prefix}/{Id(path)}", s_content);
    }
}

/// <summary>With AlwaysComputeSha256, a file a tus upload became keeps its SHA-256 like a PUT's.</summary>
public sealed class TusSha256Tests(Sha256TusServer server) : IClassFixture<Sha256TusServer>
{
    [Theory]
    [InlineData(1)]
    [InlineData(3)]
    public async Task Upload_InChunks_TheFileKeepsItsSha256(int chunks)
    {
        var content = Content(900_000, seed: 172);
        var key = NewFileName();
        var path = await CreateAsync(server, content.Length, key);

        await PatchAllAsync(server, path, content, content.Length / chunks);

        var listed = await ListedAsync(server, key) ?? throw new Xunit.Sdk.XunitException($"'{key}' is not listed");
        Assert.Equal(Convert.ToHexStringLower(SHA256.HashData(content)), listed.GetProperty("sha256").GetString());
        await AssertFileAsync(server, key, content);
    }

    [Fact]
    public async Task ConcatenatedUpload_TheFileKeepsItsSha256()
    {
        var first = Content(300_000, seed: 173);
        var second = Content(300_001, seed: 174);
        var key = NewFileName();
        var parts = new List<string>();
        foreach (var part in new[] { first, second })
        {
            var path = await CreateAsync(server, part.Length, headers: ("Upload-Concat", "partial"));
            await PatchAllAsync(server, path, part, part.Length);
            parts.Add(path);
        }

        using var created = await PostAsync(server, [("Upload-Concat", $"final;{parts[0]} {parts[1]}"), ("Upload-Metadata", Metadata(("filename", key)))]);
        await CreatedAsync(created);

        byte[] joined = [.. first, .. second];
        var listed = await ListedAsync(server, key) ?? throw new Xunit.Sdk.XunitException($"'{key}' is not listed");
        Assert.Equal(JsonValueKind.String, listed.GetProperty("sha256").ValueKind);
        Assert.Equal(Convert.ToHexStringLower(SHA256.HashData(joined)), listed.GetProperty("sha256").GetString());
        await AssertFileAsync(server, key, joined);
    }
}
