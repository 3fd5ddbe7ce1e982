using Freight.Server.Tests.Files;
using Freight.Storage;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Hostile.Soak;

/// <summary>
/// The end of a soak, the server still running: every key holds exactly its last acknowledged version (through
/// GET and on disk), deleted keys are gone, the listing is the model, and the data directory holds nothing
/// else — no temp file, no sidecar without its file, no tus bytes of an upload that finished or was deleted.
/// </summary>
internal static class SoakVerification
{
    /// <summary>Checks everything, reporting each difference to <paramref name="counters"/>; returns how many files were checked.</summary>
    public static async Task<int> VerifyAsync(Uri address, string dataDirectory, IReadOnlyList<SoakClient> clients, IReadOnlyList<SharedKey> shared, SoakCounters counters)
    {
        using var http = new HttpClient { BaseAddress = address };

        // Key → hash it must hold (null: absent); for a shared key, the hashes it may hold.
        var expected = new Dictionary<string, IReadOnlySet<string?>>(StringComparer.Ordinal);
        foreach (var key in clients.SelectMany(c => c.Owned))
        {
            expected[key.Name] = new HashSet<string?> { key.Current?.Hash };
        }

        foreach (var key in shared)
        {
            expected[key.Name] = key.PossibleFinalHashes();
        }

        var present = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var (name, hashes) in expected)
        {
            using var response = await http.GetAsync("/files/" + name);
            var body = await response.Content.ReadAsByteArrayAsync();
            string? hash = (int)response.StatusCode == 200 ? Payloads.Hash(body) : null;
            if ((int)response.StatusCode is not (200 or 404))
            {
                counters.Fault($"verify GET {name}: {(int)response.StatusCode}");
                continue;
            }

            if (!hashes.Contains(hash))
            {
                counters.Fault($"verify GET {name}: holds {hash ?? "nothing"}, the last acknowledged is {string.Join(" or ", hashes.Select(h => h ?? "nothing"))}");
            }

            if (hash is not null)
            {
                present[name] = hash;
                if (response.Headers.ETag?.ToString() != "\"" + hash + "\"")
                {
                    counters.Fault($"verify GET {name}: ETag {response.Headers.ETag} with the bytes of \"{hash}\"");
                }
            }
        }

        await VerifyListingAsync(http, present, counters);
        VerifyNoTempFiles(dataDirectory, counters);
        return VerifyFilesDirectory(Path.Combine(dataDirectory, "files"), present, counters)
            + VerifyTusDirectory(Path.Combine(dataDirectory, "tus"), clients.SelectMany(c => c.FinishedUploads).ToHashSet(StringComparer.Ordinal), counters);
    }

    /// <summary>All pages of <c>soak/</c>: exactly the present keys, in key order, with their sizes' ETags.</summary>
    private static async Task VerifyListingAsync(HttpClient http, Dictionary<string, string> present, SoakCounters counters)
    {
        var listed = new List<(string Name, string? ETag)>();
        string? cursor = null;
        do
        {
            using var response = await http.GetAsync("/files?prefix=soak%2F&limit=1000" + (cursor is null ? "" : "&cursor=" + Uri.EscapeDataString(cursor)));
            using var page = System.Text.Json.JsonDocument.Parse(await response.Content.ReadAsByteArrayAsync());
            foreach (var item in page.RootElement.GetProperty("items").EnumerateArray())
            {
                listed.Add((item.GetProperty("name").GetString()!, item.GetProperty(FilesApi.ETagProperty).GetString()));
            }

            cursor = page.RootElement.TryGetProperty("nextCursor", out var next) && next.ValueKind == System.Text.Json.JsonValueKind.String ? next.GetString() : null;
        }
        while (cursor is not null);

        var model = present.OrderBy(p => p.Key, StringComparer.Ordinal).Select(p => (p.Key, (string?)("\"" + p.Value + "\""))).ToList();
        if (!listed.SequenceEqual(model))
        {
            counters.Fault($"verify listing: [{string.Join(", ", listed)}], model [{string.Join(", ", model)}]");
        }
    }

    /// <summary>Every file under the store's root: a present key with its bytes, or the sidecar of one; nothing else.</summary>
    private static int VerifyFilesDirectory(string root, Dictionary<string, string> present, SoakCounters counters)
    {
        var files = Directory.GetFiles(root, "*", SearchOption.AllDirectories);
        var onDisk = new HashSet<string>(StringComparer.Ordinal);
        foreach (var file in files)
        {
            var name = Path.GetFileName(file);
            var key = Path.GetRelativePath(root, file).Replace(Path.DirectorySeparatorChar, '/');
            if (name.EndsWith(FileSystemObjectStore.TempSuffix, StringComparison.Ordinal))
            {
                // Reported by VerifyNoTempFiles, with those anywhere else in the data directory.
            }
            else if (name.StartsWith('.') && name.EndsWith(".freight-meta", StringComparison.Ordinal))
            {
                var described = Path.Combine(Path.GetDirectoryName(file)!, name[1..^".freight-meta".Length]);
                if (!File.Exists(described))
                {
                    counters.Fault($"verify disk: sidecar {key} of a file that is gone");
                }
            }
            else if (!present.TryGetValue(key, out var hash))
            {
                counters.Fault($"verify disk: {key} is not a key the model holds");
            }
            else
            {
                onDisk.Add(key);
                var bytesHash = Payloads.Hash(File.ReadAllBytes(file));
                if (bytesHash != hash)
                {
                    counters.Fault($"verify disk: {key} holds {bytesHash}, served {hash}");
                }
            }
        }

        foreach (var key in present.Keys.Where(k => !onDisk.Contains(k)))
        {
            counters.Fault($"verify disk: {key} is served but not on disk");
        }

        return files.Length;
    }

    /// <summary>The tus directory keeps a finished upload's record (a day), never bytes of an upload that finished or was deleted.</summary>
    private static int VerifyTusDirectory(string root, HashSet<string> finished, SoakCounters counters)
    {
        var files = Directory.Exists(root) ? Directory.GetFiles(root, "*", SearchOption.AllDirectories) : [];
        foreach (var file in files)
        {
            var name = Path.GetFileName(file);
            if (!(name.EndsWith(".json", StringComparison.Ordinal) && finished.Contains(Path.GetFileNameWithoutExtension(name))))
            {
                counters.Fault($"verify disk: tus/{Path.GetRelativePath(root, file)} left behind");
            }
        }

        return files.Length;
    }

    private static void VerifyNoTempFiles(string dataDirectory, SoakCounters counters)
    {
        var temps = Directory.GetFiles(dataDirectory, "*" + FileSystemObjectStore.TempSuffix, SearchOption.AllDirectories);
        foreach (var temp in temps)
        {
            counters.Fault($"verify disk: temp file {Path.GetRelativePath(dataDirectory, temp)} left behind");
        }
    }
}
