using System.Diagnostics;

namespace Freight.Telemetry;

/// <summary>
/// One timed store call: a <c>freight.store.{operation}</c> activity (none when no one listens) and a
/// <c>freight.store.operation.duration</c> measurement tagged with the store's kind and the operation.
/// </summary>
internal readonly struct StoreOperation
{
    public const string Open = "open";
    public const string Info = "info";
    public const string BeginWrite = "begin_write";
    public const string Commit = "commit";
    public const string Delete = "delete";
    public const string List = "list";
    public const string AddDigests = "add_digests";
    public const string CreateUpload = "create_upload";
    public const string GetUpload = "get_upload";
    public const string UpdateUpload = "update_upload";
    public const string Append = "append";
    public const string CompleteUpload = "complete_upload";
    public const string DeleteUpload = "delete_upload";

    private readonly KeyValuePair<string, object?> _kind;
    private readonly KeyValuePair<string, object?> _operation;
    private readonly long _started;
    private readonly Activity? _activity;

    private StoreOperation(KeyValuePair<string, object?> kind, string operation, string key, long? bytes)
    {
        _kind = kind;
        _operation = new KeyValuePair<string, object?>(FreightTelemetry.StoreOperationTag, operation);
        _started = Stopwatch.GetTimestamp();
        _activity = FreightTelemetry.Source.StartActivity(ActivityName(operation));
        if (_activity is not null)
        {
            _activity.SetTag(kind.Key, kind.Value);
            _activity.SetTag(FreightTelemetry.StoreOperationTag, operation);
            _activity.SetTag(FreightTelemetry.KeyTag, key);
            if (bytes is { } length)
            {
                _activity.SetTag(FreightTelemetry.BytesTag, length);
            }
        }
    }

    /// <summary>Starts timing <paramref name="operation"/> (one of the constants) on <paramref name="key"/>, of <paramref name="bytes"/> when it moves a known length (a commit).</summary>
    public static StoreOperation Start(KeyValuePair<string, object?> kind, string operation, string key, long? bytes = null) => new(kind, operation, key, bytes);

    /// <summary>The call returned.</summary>
    public void Succeeded()
    {
        FreightTelemetry.StoreOperationDuration.Record(Stopwatch.GetElapsedTime(_started).TotalSeconds, _kind, _operation);
        if (_activity is not null)
        {
            _activity.SetTag(FreightTelemetry.OutcomeTag, "ok");
            _activity.Stop();
        }
    }

    /// <summary>The call threw <paramref name="failure"/> (a precondition that failed too: the caller's answer, the store's error).</summary>
    public void Failed(Exception failure)
    {
        var errorType = new KeyValuePair<string, object?>(FreightTelemetry.ErrorTypeTag, failure.GetType().FullName);
        FreightTelemetry.StoreOperationDuration.Record(Stopwatch.GetElapsedTime(_started).TotalSeconds, _kind, _operation, errorType);
        if (_activity is not null)
        {
            _activity.SetTag(FreightTelemetry.OutcomeTag, "error");
            _activity.SetTag(errorType.Key, errorType.Value);
            _activity.SetStatus(ActivityStatusCode.Error, failure.Message);
            _activity.Stop();
        }
    }

    // Literal names: a concatenation would allocate on every call, listened to or not.
    private static string ActivityName(string operation) => operation switch
    {
        Open => "freight.store.open",
        Info => "freight.store.info",
        BeginWrite => "freight.store.begin_write",
        Commit => "freight.store.commit",
        Delete => "freight.store.delete",
        List => "freight.store.list",
        AddDigests => "freight.store.add_digests",
        CreateUpload => "freight.store.create_upload",
        GetUpload => "freight.store.get_upload",
        UpdateUpload => "freight.store.update_upload",
        Append => "freight.store.append",
        CompleteUpload => "freight.store.complete_upload",
        DeleteUpload => "freight.store.delete_upload",
        _ => "freight.store",
    };

    /// <summary>
    /// The <see cref="FreightTelemetry.StoreKindTag"/> of a store: its type's name without <paramref name="suffix"/>,
    /// in lower case (FileSystemObjectStore → filesystem, S3ResumableUploadStore → s3).
    /// </summary>
    public static KeyValuePair<string, object?> KindOf(object store, string suffix)
    {
        var name = store.GetType().Name;
        if (name.EndsWith(suffix, StringComparison.Ordinal) && name.Length > suffix.Length)
        {
            name = name[..^suffix.Length];
        }

        return new(FreightTelemetry.StoreKindTag, name.ToLowerInvariant());
    }
}
