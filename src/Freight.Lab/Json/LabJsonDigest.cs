using System.IO.Hashing;
using System.Text.Json;
using Freight.Hashing;

namespace Freight.Lab.Json;

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

    /// <summary>The canonical XXH3-128 of <paramref name="records"/> (normalized in place).</summary>
    public static string Of(List<LabRecord> records)
    {
        ArgumentNullException.ThrowIfNull(records);
        foreach (var record in records)
        {
            record.Price = Canonical(record.Price);
            record.Discount = record.Discount is { } discount ? Canonical(discount) : null;
            foreach (var line in record.Lines)
            {
                line.UnitPrice = Canonical(line.UnitPrice);
            }
        }

        return HashHex.ToHex(XxHash128.HashToUInt128(JsonSerializer.SerializeToUtf8Bytes(records, LabJsonContext.Default.ListLabRecord)));
    }

    // Serializers disagree on a decimal's trailing zeros (Newtonsoft writes 100m as "100.0", STJ as "100"),
    // not on its value: dividing by 1 at the largest scale drops them.
    private static decimal Canonical(decimal value) => value / 1.0000000000000000000000000000m;

    /// <summary>The canonical XXH3-128 of the first <paramref name="count"/> generated records.</summary>
    public static string Expected(int count) => Of(LabRecordGenerator.Enumerate(count).ToList());
}
