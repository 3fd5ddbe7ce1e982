using System.Runtime.CompilerServices;

namespace Freight.Lab.Json;

/// <summary>
/// Produces the JSON lab payload deterministically: record <c>i</c> depends only on <c>i</c>, so server and
/// bench agree without shipping data. About 330–345 bytes of JSON a record (Newtonsoft / System.Text.Json,
/// whose default encoder escapes non-ASCII): 80,000 records ≈ 26–28 MB, the size study 2 measured.
/// </summary>
public static class LabRecordGenerator
{
    /// <summary>Study 2's response was about 25 MB: 80,000 records are 26.3 MB from Newtonsoft, 27.6 MB from STJ.</summary>
    public const int DefaultRecordCount = 80_000;

    private static readonly string[] Descriptions =
    [
        "Plain ASCII text for the common case",
        "Quotes \"inside\" and a back\\slash",
        "Line one\nline two\ttabbed",
        "Accents: café, naïve, Ærøskøbing",
        "CJK: 東京都 渋谷区 神南",
        "Emoji and symbols: 🚚 → ✓ <tag> & 'apos'",
    ];

    private static readonly string[] Notes = ["fragile", "gift wrap \"red\"", "leave at door\r\n", "Zustellung: Nachbar"];

    private static readonly DateTimeOffset Epoch = new(2017, 3, 1, 0, 0, 0, TimeSpan.Zero);

    /// <summary>Record <paramref name="index"/> of the payload.</summary>
    public static LabRecord Create(int index)
    {
        var random = new SplitMix(index);
        var lines = new List<LabRecordLine>(3);
        var lineCount = 1 + (int)(random.Next() % 3);
        for (var i = 0; i < lineCount; i++)
        {
            lines.Add(new LabRecordLine
            {
                Sku = $"SKU-{random.Next() % 100_000:D5}",
                Count = 1 + (int)(random.Next() % 9),
                UnitPrice = (long)(random.Next() % 100_000) / 100m,
            });
        }

        var created = Epoch.AddSeconds(index * 37L + (long)(random.Next() % 30));
        return new LabRecord
        {
            Id = index + 1,
            Sequence = 9_000_000_000L + (index * 7919L),
            Name = $"Customer {index:D6}",
            Description = Descriptions[index % Descriptions.Length],
            Price = (long)(random.Next() % 10_000_000) / 100m,
            Discount = index % 4 == 0 ? (long)(random.Next() % 5_000) / 100m : null,
            Quantity = index % 3 == 0 ? 0 : (int)(random.Next() % 1_000),
            IsActive = index % 2 == 0,
            CreatedAt = created,
            ShippedAt = index % 5 == 0 ? created.AddHours(1 + (long)(random.Next() % 72)) : null,
            Status = (LabRecordStatus)(1 + (index % 5)),
            Note = index % 7 == 0 ? Notes[index % Notes.Length] : null,
            Lines = lines,
        };
    }

    /// <summary>The first <paramref name="count"/> records, one at a time.</summary>
    public static IEnumerable<LabRecord> Enumerate(int count)
    {
        for (var i = 0; i < count; i++)
        {
            yield return Create(i);
        }
    }

    /// <summary>
    /// The first <paramref name="count"/> records as an async stream; <paramref name="beforeLast"/>, when given,
    /// is awaited before the last record is produced (lets a test prove bytes left before the end).
    /// </summary>
    public static async IAsyncEnumerable<LabRecord> EnumerateAsync(int count, Func<Task>? beforeLast = null, [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        for (var i = 0; i < count; i++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (i == count - 1 && beforeLast is not null)
            {
                await beforeLast();
            }

            yield return Create(i);
        }
    }

    /// <summary>SplitMix64 seeded by the record index: cheap, and the same on every platform.</summary>
    private struct SplitMix(int index)
    {
        private ulong _state = 0x5EED_2017UL + ((ulong)index << 20);

        public ulong Next()
        {
            var z = _state += 0x9E3779B97F4A7C15;
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
            return z ^ (z >> 31);
        }
    }
}
