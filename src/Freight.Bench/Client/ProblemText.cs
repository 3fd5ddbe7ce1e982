using System.Buffers;
using System.Globalization;
using System.Text;
using System.Text.Json;

namespace Freight.Bench.Client;

/// <summary>Turns an error response into one line: status, and the problem's title and detail (RFC 9457) when there is one.</summary>
internal static class ProblemText
{
    // An error body is read for its message only; a larger one is some page, not a problem document.
    private const int MaxBodyBytes = 64 * 1024;

    // A plain-text body is shown up to here, on one line.
    private const int MaxTextChars = 200;

    public static async Task<string> DescribeAsync(HttpResponseMessage response, bool tokenSent, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(response);
        var status = string.Create(CultureInfo.InvariantCulture, $"HTTP {(int)response.StatusCode} {response.ReasonPhrase}").TrimEnd();
        var body = await ReadBodyAsync(response, cancellationToken);
        var message = Describe(response.Content.Headers.ContentType?.MediaType, body);
        var text = message is null ? status : $"{status}: {message}";
        if (response.StatusCode == System.Net.HttpStatusCode.Unauthorized && response.Headers.WwwAuthenticate.Count > 0)
        {
            text += tokenSent
                ? " (the server refused the token given: check --token)"
                : $" (the server asks for {string.Join(", ", response.Headers.WwwAuthenticate)}: pass --token T)";
        }

        return text;
    }

    /// <summary>"title: detail" of a problem document, the first line of a text body, or null.</summary>
    internal static string? Describe(string? mediaType, string body)
    {
        if (body.Length == 0)
        {
            return null;
        }

        if (mediaType is not null && mediaType.EndsWith("json", StringComparison.OrdinalIgnoreCase))
        {
            try
            {
                using var document = JsonDocument.Parse(body);
                if (document.RootElement.ValueKind == JsonValueKind.Object)
                {
                    var title = Text(document.RootElement, "title");
                    var detail = Text(document.RootElement, "detail");
                    return (title, detail) switch
                    {
                        (null, null) => null,
                        (not null, null) => title,
                        (null, not null) => detail,
                        _ => $"{title}: {detail}",
                    };
                }
            }
            catch (JsonException)
            {
                // Not JSON after all: show it as text.
            }
        }

        if (mediaType is not null && !mediaType.StartsWith("text/", StringComparison.OrdinalIgnoreCase))
        {
            return null;
        }

        var line = body.AsSpan().Trim();
        var end = line.IndexOfAny('\r', '\n');
        line = end >= 0 ? line[..end] : line;
        return line.Length <= MaxTextChars ? line.ToString() : string.Concat(line[..MaxTextChars], "…");
    }

    private static string? Text(JsonElement problem, string name) =>
        problem.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.String && value.GetString() is { Length: > 0 } text ? text : null;

    private static async Task<string> ReadBodyAsync(HttpResponseMessage response, CancellationToken cancellationToken)
    {
        var buffer = ArrayPool<byte>.Shared.Rent(MaxBodyBytes);
        try
        {
            await using var stream = await response.Content.ReadAsStreamAsync(cancellationToken);
            var length = 0;
            int read;
            while (length < MaxBodyBytes && (read = await stream.ReadAsync(buffer.AsMemory(length, MaxBodyBytes - length), cancellationToken)) > 0)
            {
                length += read;
            }

            return Encoding.UTF8.GetString(buffer, 0, length);
        }
        catch (Exception e) when (e is IOException or HttpRequestException)
        {
            // The status says enough when the body cannot be read.
            return "";
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }
}
