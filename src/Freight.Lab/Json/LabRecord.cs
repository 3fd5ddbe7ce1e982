namespace Freight.Lab.Json;

/// <summary>
/// One record of the JSON lab payload (study 2): ints, longs, decimals, strings with escapes and
/// non-ASCII text, dates, an enum, nullable and default-valued fields, and a nested list — the shapes
/// that make a real API response expensive to serialize.
/// </summary>
public sealed class LabRecord
{
    public int Id { get; set; }

    public long Sequence { get; set; }

    public string Name { get; set; } = "";

    /// <summary>Quotes, backslashes, control characters, accents, CJK and an emoji, by turns.</summary>
    public string Description { get; set; } = "";

    public decimal Price { get; set; }

    /// <summary>Null for most records.</summary>
    public decimal? Discount { get; set; }

    /// <summary>0 (the default, left out) for about a third of the records.</summary>
    public int Quantity { get; set; }

    /// <summary>False (the default, left out) for half of the records.</summary>
    public bool IsActive { get; set; }

    public DateTimeOffset CreatedAt { get; set; }

    /// <summary>Null for most records.</summary>
    public DateTimeOffset? ShippedAt { get; set; }

    /// <summary>Never the default: the enum starts at 1, so every record shows it as a string.</summary>
    public LabRecordStatus Status { get; set; }

    /// <summary>Null for most records.</summary>
    public string? Note { get; set; }

    public List<LabRecordLine> Lines { get; set; } = [];
}

/// <summary>An order line inside a <see cref="LabRecord"/>.</summary>
public sealed class LabRecordLine
{
    public string Sku { get; set; } = "";

    public int Count { get; set; }

    public decimal UnitPrice { get; set; }
}

/// <summary>Serialized as strings, as study 2's settings asked.</summary>
public enum LabRecordStatus
{
    Pending = 1,
    Paid,
    Shipped,
    Delivered,
    Cancelled,
}
