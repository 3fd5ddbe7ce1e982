using System.Text;

namespace Freight.Bench.Reports.Output;

/// <summary>Unique, readable ids for sections, tables and charts: lower-case letters, digits and dashes (HTML ids, CSV file names).</summary>
internal sealed class ReportIds
{
    private readonly HashSet<string> _taken = new(StringComparer.Ordinal);

    public string Take(string text)
    {
        var slug = Slug(text);
        var id = slug;
        for (var n = 2; !_taken.Add(id); n++)
        {
            id = $"{slug}-{n}";
        }

        return id;
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
