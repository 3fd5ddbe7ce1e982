using System.Text;

namespace Freight.Bench.Reports.Output;

/// <summary>
/// HTML-encodes text for element content and quoted attribute values (HTML Living Standard §13.1.2.6, §13.1.4): the
/// five characters that can end or open markup become references; everything else stays as it is (the page is UTF-8).
/// </summary>
public static class HtmlText
{
    public static string Encode(string? text)
    {
        if (string.IsNullOrEmpty(text))
        {
            return "";
        }

        if (text.AsSpan().IndexOfAny("&<>\"'") < 0)
        {
            return text;
        }

        var encoded = new StringBuilder(text.Length + 16);
        foreach (var c in text)
        {
            _ = c switch
            {
                '&' => encoded.Append("&amp;"),
                '<' => encoded.Append("&lt;"),
                '>' => encoded.Append("&gt;"),
                '"' => encoded.Append("&quot;"),
                '\'' => encoded.Append("&#39;"),
                _ => encoded.Append(c),
            };
        }

        return encoded.ToString();
    }
}
