using System.Collections.Concurrent;
using System.Text.Json;
using Freight.Lab.Json;

namespace Freight.Server.Tests.Json;

/// <summary>The JSON lab's variants and what every one of them must answer for <c>?records=N</c>.</summary>
internal static class JsonDocuments
{
    public static readonly string[] Variants = ["newtonsoft-buffered", "newtonsoft-unbuffered", "stj", "stj-stream"];

    /// <summary>The variants that must never touch ASPNETCORE_TEMP.</summary>
    public static readonly string[] Unbuffered = ["newtonsoft-unbuffered", "stj", "stj-stream"];

    public const string ContentType = "application/json; charset=utf-8";

    private static readonly ConcurrentDictionary<int, Lazy<byte[]>> s_canonical = new();
    private static readonly ConcurrentDictionary<int, Lazy<string>> s_hashes = new();

    /// <summary>The first <paramref name="count"/> records serialized by the canonical context (shared: do not modify).</summary>
    public static byte[] Canonical(int count) => s_canonical.GetOrAdd(count, static c => new Lazy<byte[]>(() =>
        JsonSerializer.SerializeToUtf8Bytes(LabRecordGenerator.Enumerate(c).ToList(), LabJsonContext.Default.ListLabRecord))).Value;

    public static string ExpectedHash(int count) =>
        s_hashes.GetOrAdd(count, static c => new Lazy<string>(() => LabJsonDigest.Expected(c))).Value;

    /// <summary>
    /// Asserts <paramref name="body"/> is the document of the first <paramref name="count"/> records: equal as JSON to
    /// the canonical one (so every variant equals every other), with the study's settings, and with the canonical digest.
    /// </summary>
    public static async Task AssertIsDocumentAsync(byte[] body, int count)
    {
        using (var document = JsonDocument.Parse(body))
        using (var canonical = JsonDocument.Parse(Canonical(count)))
        {
            Assert.Equal(JsonValueKind.Array, document.RootElement.ValueKind);
            Assert.Equal(count, document.RootElement.GetArrayLength());
            Assert.True(JsonElement.DeepEquals(canonical.RootElement, document.RootElement), "the document differs from the canonical one");
            AssertStudySettings(document.RootElement);
        }

        using var stream = new MemoryStream(body, writable: false);
        var (records, hash) = await LabJsonDigest.OfResponseAsync(stream);
        Assert.Equal(count, records);
        Assert.Equal(ExpectedHash(count), hash);
    }

    /// <summary>Study 2's settings: camelCase, no nulls anywhere, default values left out, enums as their names.</summary>
    public static void AssertStudySettings(JsonElement records)
    {
        var index = 0;
        foreach (var record in records.EnumerateArray())
        {
            var expected = LabRecordGenerator.Create(index++);
            AssertNoNulls(record);
            Assert.Equal(expected.Quantity != 0, record.TryGetProperty("quantity", out _));
            Assert.Equal(expected.IsActive, record.TryGetProperty("isActive", out _));
            Assert.Equal(expected.Discount is not null, record.TryGetProperty("discount", out _));
            Assert.Equal(expected.ShippedAt is not null, record.TryGetProperty("shippedAt", out _));
            Assert.Equal(expected.Note is not null, record.TryGetProperty("note", out _));
            var status = record.GetProperty("status");
            Assert.Equal(JsonValueKind.String, status.ValueKind);
            Assert.Equal(expected.Status.ToString(), status.GetString());
        }
    }

    private static void AssertNoNulls(JsonElement element)
    {
        switch (element.ValueKind)
        {
            case JsonValueKind.Null:
                Assert.Fail("a null value was written");
                break;
            case JsonValueKind.Object:
                foreach (var property in element.EnumerateObject())
                {
                    Assert.True(char.IsAsciiLetterLower(property.Name[0]), $"'{property.Name}' is not camelCase");
                    AssertNoNulls(property.Value);
                }

                break;
            case JsonValueKind.Array:
                foreach (var item in element.EnumerateArray())
                {
                    AssertNoNulls(item);
                }

                break;
        }
    }
}
