using System.Security.Cryptography;
using System.Text;

namespace Freight.Bench.Reports.Output;

/// <summary>
/// Unique, readable ids for sections, tables and charts: lower-case letters, digits and dashes (HTML ids, CSV and SVG
/// file names), at most <see cref="MaxLength"/> characters.
/// </summary>
internal sealed class ReportIds
{
    /// <summary>
    /// An id longer than this is cut and ends in a hash of the whole: a file name is at most 255 bytes on Linux's file
    /// systems, and a load row's label holds its URL (a 300-character query made a CSV name the file system refused).
    /// Room is left for "NN-", a "-N" suffix and ".csv".
    /// </summary>
    public const int MaxLength = 200;

    /// <summary>Hex digits of the hash a cut id ends with: two ids cut to the same start still differ.</summary>
    private const int HashDigits = 10;

    private readonly HashSet<string> _taken = new(StringComparer.Ordinal);

    public string Take(string text)
    {
        var slug = Bounded(Slug(text));
        var id = slug;
        for (var n = 2; !_taken.Add(id); n++)
        {
            id = $"{slug}-{n}";
        }

        return id;
    }

    /// <summary>The slug, or its first characters and a hash of the whole when it is longer than <see cref="MaxLength"/>.</summary>
    private static string Bounded(string slug)
    {
        if (slug.Length <= MaxLength)
        {
            return slug;
        }

        var hash = Convert.ToHexStringLower(SHA256.HashData(Encoding.ASCII.GetBytes(slug)))[..HashDigits];
        return $"{slug[..(MaxLength - HashDigits - 1)].TrimEnd('-')}-{hash}";
    }

    public static string Slug(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        var slug = new StringBuilder(text.Length);
        foreach (var c in text)
        {
            if (char.IsAsciiLetterOrDigit(c))
            {
                slug.Append(char.ToLowerInvariant(c));
            }
            else if (slug.Length > 0 && slug[^1] != '-')
            {
                slug.Append('-');
            }
        }

        var id = slug.ToString().TrimEnd('-');
        return id.Length == 0 ? "x" : id;
    }
}
