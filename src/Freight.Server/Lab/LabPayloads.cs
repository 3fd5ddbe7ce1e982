using System.Collections.Concurrent;
using Freight.Lab.Payload;
using Freight.Server.Hosting;
using Microsoft.Extensions.Options;

namespace Freight.Server.Lab;

/// <summary>
/// The lab's payloads by size: in memory for the stream/bytes variants (generated once, cached) and
/// as files in the data directory for the from-disk variants (written once, atomically).
/// </summary>
public sealed class LabPayloads
{
    // Cap on cached in-memory payloads; past it the cache starts over (the bench uses one or two sizes).
    private const long MaxCachedBytes = 2L * 1024 * 1024 * 1024;

    private readonly ConcurrentDictionary<long, Lazy<byte[]>> _bytes = new();
    private readonly ConcurrentDictionary<long, Lazy<string>> _files = new();
    private readonly string _directory;
    private long _cachedBytes;

    public LabPayloads(IOptions<FreightServerOptions> options)
    {
        ArgumentNullException.ThrowIfNull(options);
        _directory = Path.Combine(Path.GetFullPath(options.Value.DataDirectory), "lab", "payloads");
    }

    /// <summary>The payload of <paramref name="size"/> bytes, in memory.</summary>
    public byte[] GetBytes(long size)
    {
        var entry = _bytes.GetOrAdd(size, static s => new Lazy<byte[]>(() => DeterministicPayload.Create(s)));
        if (!entry.IsValueCreated && Interlocked.Add(ref _cachedBytes, size) > MaxCachedBytes)
        {
            _bytes.Clear();
            Interlocked.Exchange(ref _cachedBytes, size);
            _bytes[size] = entry;
        }

        return entry.Value;
    }

    /// <summary>The path of a file holding the payload of <paramref name="size"/> bytes.</summary>
    public string GetFile(long size) =>
        _files.GetOrAdd(size, s => new Lazy<string>(() =>
        {
            var path = Path.Combine(_directory, $"payload-{DeterministicPayload.DefaultSeed}-{s}.bin");
            if (!File.Exists(path) || new FileInfo(path).Length != s)
            {
                DeterministicPayload.WriteFile(path, s);
            }

            return path;
        })).Value;
}
