using System.Text.Json;
using Freight.Bench.Peers;

namespace Freight.Server.Tests.Tus.Interop;

/// <summary>
/// What <c>upload.mjs</c> printed: one JSON object per line, <c>request</c>/<c>response</c> for every request
/// tus-js-client sent, and a last <c>result</c> (success) or <c>error</c> line.
/// </summary>
internal sealed class TusRun
{
    public TusRun(ChildProcessResult output)
    {
        Output = output;
        foreach (var line in output.Stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            if (!line.StartsWith('{'))
            {
                continue;
            }

            try
            {
                using var document = JsonDocument.Parse(line);
                Events.Add(document.RootElement.Clone());
            }
            catch (JsonException)
            {
                // A line cut short by a kill: the assertion message shows it as it came.
            }
        }
    }

    public ChildProcessResult Output { get; }

    public List<JsonElement> Events { get; } = [];

    /// <summary>The script exited 0 with a result line; returns it. Otherwise fails with everything the script printed.</summary>
    public JsonElement AssertSucceeded()
    {
        var results = Events.Where(e => Kind(e) == "result").ToList();
        Assert.True(Output.ExitCode == 0 && results.Count == 1, "tus-js-client did not finish the upload: " + Output.Describe());
        return results[0];
    }

    /// <summary>The requests tus-js-client sent (and, where one came, the answer), in the order it sent them.</summary>
    public IReadOnlyList<TusRequest> Requests()
    {
        var requests = new List<TusRequest>();
        foreach (var e in Events)
        {
            if (Kind(e) == "request")
            {
                requests.Add(new TusRequest(
                    e.GetProperty("phase").GetString()!,
                    e.GetProperty("method").GetString()!,
                    e.GetProperty("url").GetString()!,
                    Headers(e)));
            }
            else if (Kind(e) == "response")
            {
                // "id" is the request's index in the order the script saw them.
                var id = e.GetProperty("id").GetInt32();
                requests[id] = requests[id] with { Status = e.GetProperty("status").GetInt32(), ResponseHeaders = Headers(e) };
            }
        }

        return requests;
    }

    private static string? Kind(JsonElement e) => e.GetProperty("event").GetString();

    private static Dictionary<string, string> Headers(JsonElement e) =>
        e.GetProperty("headers").EnumerateObject().ToDictionary(p => p.Name, p => p.Value.GetString()!, StringComparer.OrdinalIgnoreCase);
}
