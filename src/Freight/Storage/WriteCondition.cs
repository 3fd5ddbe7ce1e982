namespace Freight.Storage;

/// <summary>
/// A condition a write or delete must meet at the moment it takes effect (checked and applied under the
/// store's lock for the key, so two requests cannot both pass it): HTTP's <c>If-None-Match: *</c> and
/// <c>If-Match</c> (RFC 9110 §13.1.1–2).
/// </summary>
public sealed record WriteCondition
{
    /// <summary>No condition.</summary>
    public static readonly WriteCondition None = new();

    /// <summary>Only if no object exists (<c>If-None-Match: *</c>).</summary>
    public bool IfNoneExists { get; init; }

    /// <summary>Only if an object exists whose ETag is one of these (strong comparison); "*" matches any existing object.</summary>
    public IReadOnlyList<string>? IfMatch { get; init; }

    /// <summary>Whether the condition holds for the current object (null: none exists).</summary>
    public bool IsMetBy(ObjectInfo? current)
    {
        if (IfNoneExists && current is not null)
        {
            return false;
        }

        if (IfMatch is { } tags)
        {
            if (current is null)
            {
                return false;
            }

            foreach (var tag in tags)
            {
                if (tag == "*" || string.Equals(tag, current.ETag, StringComparison.Ordinal))
                {
                    return true;
                }
            }

            return false;
        }

        return true;
    }
}
