using System.Globalization;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace Freight.Bench.Results;

/// <summary>
/// What sets a row apart from the other rows of its scenario: the result JSON's <c>parameters</c> object. Every key a
/// suite or <c>freight load</c> writes has a typed property (null when the row has none); a key this version does not
/// know, read from another version's file, is kept as it was read and written back unchanged. Keys keep the order they
/// were first set or read in, as the dictionary this replaced did, so a row writes the same object it was built or
/// read with. Setting a property to null removes its key.
/// </summary>
[JsonConverter(typeof(ScenarioParametersConverter))]
public sealed class ScenarioParameters
{
    /// <summary>How each known key's value is read from a file; a value of another kind is kept as it was read.</summary>
    internal static readonly IReadOnlyDictionary<string, ParameterKind> Kinds = new Dictionary<string, ParameterKind>(StringComparer.Ordinal)
    {
        ["label"] = ParameterKind.Text,
        ["payloadBytes"] = ParameterKind.Integer,
        ["fileBytes"] = ParameterKind.Integer,
        ["clientBufferBytes"] = ParameterKind.Integer,
        ["scheme"] = ParameterKind.Text,
        ["protocol"] = ParameterKind.Text,
        ["direction"] = ParameterKind.Text,
        ["server"] = ParameterKind.Text,
        ["source"] = ParameterKind.Text,
        ["contentLength"] = ParameterKind.Text,
        ["sink"] = ParameterKind.Text,
        ["store"] = ParameterKind.Text,
        ["s3Server"] = ParameterKind.Text,
        ["rgwVersion"] = ParameterKind.Text,
        ["serverCpu"] = ParameterKind.Text,
        ["connections"] = ParameterKind.Integer,
        ["generator"] = ParameterKind.Text,
        ["mode"] = ParameterKind.Text,
        ["records"] = ParameterKind.Integer,
        ["concurrency"] = ParameterKind.Integer,
        ["bodyBytes"] = ParameterKind.Integer,
        ["chunkBytes"] = ParameterKind.Integer,
        ["requestsPerTransfer"] = ParameterKind.Integer,
        ["delayMs"] = ParameterKind.Integer,
        ["rampFrom"] = ParameterKind.Integer,
        ["rampTo"] = ParameterKind.Integer,
        ["rampSeconds"] = ParameterKind.Number,
        ["rounds"] = ParameterKind.Integer,
        ["target"] = ParameterKind.Text,
        ["threads"] = ParameterKind.Integer,
        ["benchmark"] = ParameterKind.Text,
        ["input"] = ParameterKind.Text,
        ["bytesPerOperation"] = ParameterKind.Integer,
        ["job"] = ParameterKind.Text,
        ["clock"] = ParameterKind.Text,
        ["allocatedBytesPerOperation"] = ParameterKind.Integer,
        ["url"] = ParameterKind.Text,
        ["method"] = ParameterKind.Text,
        ["transport"] = ParameterKind.Text,
        ["bodySource"] = ParameterKind.Text,
        ["verify"] = ParameterKind.Text,
        ["multipart"] = ParameterKind.Boolean,
        ["rate"] = ParameterKind.Number,
        ["durationSeconds"] = ParameterKind.Number,
        ["requests"] = ParameterKind.Integer,
    };

    // string, long, double, bool, or a JsonElement (a key this version does not know, or a value not of its key's kind).
    private readonly List<KeyValuePair<string, object>> _entries = [];

    /// <summary>The row's human label: what distinguishes it from the other rows of its scenario id.</summary>
    public string? Label { get => Text("label"); set => Set("label", value); }

    public long? PayloadBytes { get => Integer("payloadBytes"); set => Set("payloadBytes", value); }

    /// <summary>The static suite's file size.</summary>
    public long? FileBytes { get => Integer("fileBytes"); set => Set("fileBytes", value); }

    public int? ClientBufferBytes { get => Int32("clientBufferBytes"); set => Set("clientBufferBytes", value); }

    /// <summary><c>http</c> or <c>https</c>.</summary>
    public string? Scheme { get => Text("scheme"); set => Set("scheme", value); }

    /// <summary><c>http/1.1</c> or <c>h2</c>.</summary>
    public string? Protocol { get => Text("protocol"); set => Set("protocol", value); }

    /// <summary><c>upload</c> or <c>download</c>.</summary>
    public string? Direction { get => Text("direction"); set => Set("direction", value); }

    /// <summary>Who answered: <c>freight</c>, <c>stock-pool</c>, <c>nginx</c>, <c>rgw</c>, <c>tus-node</c>, …</summary>
    public string? Server { get => Text("server"); set => Set("server", value); }

    /// <summary>The transfer suite's upload source: <c>memory</c> or <c>file</c>.</summary>
    public string? Source { get => Text("source"); set => Set("source", value); }

    /// <summary>The transfer suite's upload framing: <c>known</c> or <c>chunked</c>.</summary>
    public string? ContentLength { get => Text("contentLength"); set => Set("contentLength", value); }

    /// <summary>Where the lab stores an upload: <c>memory</c> or <c>file</c>.</summary>
    public string? Sink { get => Text("sink"); set => Set("sink", value); }

    /// <summary>The files suite's store: <c>fs</c> or <c>s3</c>.</summary>
    public string? Store { get => Text("store"); set => Set("store", value); }

    public string? S3Server { get => Text("s3Server"); set => Set("s3Server", value); }

    public string? RgwVersion { get => Text("rgwVersion"); set => Set("rgwVersion", value); }

    /// <summary>Whose CPU the row's server cost counts on S3 (<c>freight+radosgw+ceph-osd</c>).</summary>
    public string? ServerCpu { get => Text("serverCpu"); set => Set("serverCpu", value); }

    public int? Connections { get => Int32("connections"); set => Set("connections", value); }

    /// <summary>The static suite's load generator: <c>engine</c> or <c>wrk</c>.</summary>
    public string? Generator { get => Text("generator"); set => Set("generator", value); }

    /// <summary><c>closed-loop</c> or <c>open-loop</c>.</summary>
    public string? Mode { get => Text("mode"); set => Set("mode", value); }

    public int? Records { get => Int32("records"); set => Set("records", value); }

    public int? Concurrency { get => Int32("concurrency"); set => Set("concurrency", value); }

    public long? BodyBytes { get => Integer("bodyBytes"); set => Set("bodyBytes", value); }

    public int? ChunkBytes { get => Int32("chunkBytes"); set => Set("chunkBytes", value); }

    public int? RequestsPerTransfer { get => Int32("requestsPerTransfer"); set => Set("requestsPerTransfer", value); }

    public int? DelayMs { get => Int32("delayMs"); set => Set("delayMs", value); }

    public int? RampFrom { get => Int32("rampFrom"); set => Set("rampFrom", value); }

    public int? RampTo { get => Int32("rampTo"); set => Set("rampTo", value); }

    public double? RampSeconds { get => Number("rampSeconds"); set => Set("rampSeconds", value); }

    public int? Rounds { get => Int32("rounds"); set => Set("rounds", value); }

    /// <summary>The row another row measured the same endpoint as (peer/wrk's <c>load/ping</c>).</summary>
    public string? Target { get => Text("target"); set => Set("target", value); }

    public int? Threads { get => Int32("threads"); set => Set("threads", value); }

    /// <summary>The micro suite's measured code (<c>multipart-freight</c>, …).</summary>
    public string? Benchmark { get => Text("benchmark"); set => Set("benchmark", value); }

    /// <summary>The micro suite's input (<c>large-parts</c>, …).</summary>
    public string? Input { get => Text("input"); set => Set("input", value); }

    public long? BytesPerOperation { get => Integer("bytesPerOperation"); set => Set("bytesPerOperation", value); }

    /// <summary>The micro suite's BenchmarkDotNet job: <c>short</c> or <c>default</c>.</summary>
    public string? Job { get => Text("job"); set => Set("job", value); }

    /// <summary>What the micro suite's times count: <c>thread CPU time</c> or <c>wall time</c>.</summary>
    public string? Clock { get => Text("clock"); set => Set("clock", value); }

    public long? AllocatedBytesPerOperation { get => Integer("allocatedBytesPerOperation"); set => Set("allocatedBytesPerOperation", value); }

    /// <summary><c>freight load</c>'s URL.</summary>
    public string? Url { get => Text("url"); set => Set("url", value); }

    public string? Method { get => Text("method"); set => Set("method", value); }

    /// <summary><c>freight load</c>'s client: <c>raw-http11</c> or <c>httpclient</c>.</summary>
    public string? Transport { get => Text("transport"); set => Set("transport", value); }

    public string? BodySource { get => Text("bodySource"); set => Set("bodySource", value); }

    /// <summary>What <c>freight load</c> checked of each response: <c>sha-256</c>, <c>status</c> or <c>digest-fields</c>.</summary>
    public string? Verify { get => Text("verify"); set => Set("verify", value); }

    public bool? Multipart { get => Boolean("multipart"); set => Set("multipart", value); }

    /// <summary><c>freight load --rate</c>: requests per second (open loop).</summary>
    public double? Rate { get => Number("rate"); set => Set("rate", value); }

    public double? DurationSeconds { get => Number("durationSeconds"); set => Set("durationSeconds", value); }

    public long? Requests { get => Integer("requests"); set => Set("requests", value); }

    /// <summary>A copy with the same keys in the same order, to set more on.</summary>
    public ScenarioParameters Copy()
    {
        var copy = new ScenarioParameters();
        copy._entries.AddRange(_entries);
        return copy;
    }

    /// <summary>How many keys the row has.</summary>
    public int Count => _entries.Count;

    /// <summary>The keys and values in order: a string, a long, a double, a bool, or a <see cref="JsonElement"/> kept as read.</summary>
    internal IReadOnlyList<KeyValuePair<string, object>> Entries => _entries;

    /// <summary>
    /// Each key with its value's text as the JSON writes it (a string's characters, a number's digits, <c>true</c>),
    /// in order: the same whether the row was built by this run or read from a file.
    /// </summary>
    public IEnumerable<KeyValuePair<string, string>> Texts()
    {
        foreach (var (key, value) in _entries)
        {
            yield return new(key, TextOf(value));
        }
    }

    /// <summary>Adds or replaces <paramref name="key"/> as read from a file (the converter); a new key goes last.</summary>
    internal void Put(string key, object value)
    {
        for (var i = 0; i < _entries.Count; i++)
        {
            if (_entries[i].Key == key)
            {
                _entries[i] = new(key, value);
                return;
            }
        }

        _entries.Add(new(key, value));
    }

    private void Set(string key, object? value)
    {
        if (value is null)
        {
            _entries.RemoveAll(entry => entry.Key == key);
            return;
        }

        // Integers are kept as long whatever property set them: one representation, one comparison.
        Put(key, value is int number ? (long)number : value);
    }

    private object? Value(string key)
    {
        foreach (var (k, value) in _entries)
        {
            if (k == key)
            {
                return value;
            }
        }

        return null;
    }

    private string? Text(string key) => Value(key) as string;

    private long? Integer(string key) => Value(key) is long number ? number : null;

    private int? Int32(string key) => Integer(key) is { } number && number is >= int.MinValue and <= int.MaxValue ? (int)number : null;

    private double? Number(string key) => Value(key) switch
    {
        double number => number,
        long number => number,
        _ => null,
    };

    private bool? Boolean(string key) => Value(key) is bool flag ? flag : null;

    private static string TextOf(object value) => value switch
    {
        string text => text,
        long number => number.ToString(CultureInfo.InvariantCulture),
        bool flag => flag ? "true" : "false",
        JsonElement { ValueKind: JsonValueKind.String } element => element.GetString() ?? "",
        JsonElement element => element.GetRawText(),
        // A double as the JSON writes it (shortest round-trip form).
        _ => JsonSerializer.Serialize(value),
    };
}

/// <summary>How a known parameter's value is read.</summary>
internal enum ParameterKind
{
    Text,
    Integer,
    Number,
    Boolean,
}
