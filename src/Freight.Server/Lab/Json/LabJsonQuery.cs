using System.Collections.Concurrent;
using System.Globalization;
using Freight.Lab.Json;
using Freight.AspNetCore.Errors;
using Microsoft.AspNetCore.Http;

namespace Freight.Server.Lab.Json;

/// <summary>
/// The JSON lab's query parameters: <c>records</c> (how many, <see cref="LabRecordGenerator.DefaultRecordCount"/>
/// by default) and <c>gate</c> (a test hook of <c>json/stj-stream</c>, see <see cref="LabJsonGates"/>).
/// </summary>
internal static class LabJsonQuery
{
    /// <summary>
    /// 20× study 2's response: about 0.5–0.7 GB of JSON and about 1 GB of records in memory for the variants that
    /// materialize the list. Room to scale the study up without one request taking the machine.
    /// </summary>
    public const int MaxRecords = 2_000_000;

    /// <summary>Gate names are short tokens a test makes up: letters, digits, '-' and '_'.</summary>
    public const int MaxGateNameLength = 64;

    public static int RecordCount(HttpRequest request)
    {
        var text = request.Query["records"].ToString();
        if (text.Length == 0)
        {
            return LabRecordGenerator.DefaultRecordCount;
        }

        return int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var count) && count <= MaxRecords
            ? count
            : throw LabRequest.Invalid($"records must be a whole number from 0 to {MaxRecords}.");
    }

    /// <summary>The <c>gate</c> parameter, or null when absent.</summary>
    public static string? GateName(HttpRequest request)
    {
        var text = request.Query["gate"].ToString();
        return text.Length == 0 ? null : ValidGateName(text);
    }

    public static string ValidGateName(string name)
    {
        if (name.Length is 0 or > MaxGateNameLength)
        {
            throw LabRequest.Invalid($"A gate name has 1 to {MaxGateNameLength} characters.");
        }

        foreach (var c in name)
        {
            if (!char.IsAsciiLetterOrDigit(c) && c is not ('-' or '_'))
            {
                throw LabRequest.Invalid("A gate name has only letters, digits, '-' and '_'.");
            }
        }

        return name;
    }

    /// <summary>
    /// The records as one list, built once per count and kept (the last few counts), as an API answering from
    /// its cache would hold them. Every variant that serializes a list takes it from here, so what a response
    /// costs is the serializer's work alone — study 2's question — not building 80,000 objects (~47 MiB of
    /// allocations, the same for every variant). <c>json/stj-stream</c> builds its records lazily instead.
    /// </summary>
    public static List<LabRecord> Materialize(int count)
    {
        if (Cache.Count >= MaxCachedCounts && !Cache.ContainsKey(count))
        {
            Cache.Clear();
        }

        return Cache.GetOrAdd(count, static c => new Lazy<List<LabRecord>>(() => LabRecordGenerator.Enumerate(c).ToList())).Value;
    }

    private const int MaxCachedCounts = 4;

    private static readonly ConcurrentDictionary<int, Lazy<List<LabRecord>>> Cache = new();
}
