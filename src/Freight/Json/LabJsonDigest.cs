using System.Text.Json;
using Freight.Hashing;

namespace Freight.Json;

/// <summary>
/// Verifies a JSON lab response whatever its serializer: parse it into records, re-serialize them in the
/// canonical form (<see cref="LabJsonContext"/>), and hash that. Escaping, spacing and number formatting
/// differ between serializers; the records and this digest do not.
/// </summary>
public static class LabJsonDigest
{
    /// <summary>Record count and canonical XXH3-128 of a response body.</summary>
    public static async Task<(int Records, string Hash)> OfResponseAsync(Stream body, CancellationToken cancellationToken = default)
    {
        var records = await JsonSerializer.DeserializeAsync(body, LabJsonContext.Default.ListLabRecord, cancellationToken)
            ?? throw new JsonException("The response is JSON null, not an array of records.");
        return (records.Count, Of(records));
    }

    /// <summary>The canonical XXH3-128 of <paramref name="records"/>.</summary>
    public static string Of(List<LabRecord> records) =>
        XxHash128.ToHex(XxHash128.HashToUInt128(JsonSerializer.SerializeToUtf8Bytes(records, LabJsonContext.Default.ListLabRecord)));

    /// <summary>The canonical XXH3-128 of the first <paramref name="count"/> generated records.</summary>
    public static string Expected(int count) => Of(LabRecordGenerator.Enumerate(count).ToList());
}
