using System.Text.RegularExpressions;

namespace Freight.Server.Lab;

/// <summary>
/// Temp files an older <c>freight serve</c> left when killed while writing a lab file: before 2026-11-29 the lab named
/// them <c>.NAME.GUID.tmp</c> (now <c>….freight-tmp</c>, swept with the stores'), so nothing ever removed them, up to
/// 4 GiB each. Swept at start, and only what that version wrote: in the two folders it wrote into
/// (<c>{data}/lab/payloads</c>, <c>{data}/lab/static</c>; neither below them nor through a link), regular files whose
/// whole name is one of its lab files' (<c>payload-SEED-SIZE.bin</c>, <c>SIZE.bin</c>) between a dot and
/// <c>.GUID.tmp</c> (32 lower-case hex digits, <c>Guid.ToString("N")</c>). Nothing else has such a name there:
/// the lab writes no other file in those folders, and the files API keeps its own directory (<c>{data}/files</c> by default).
/// </summary>
internal static partial class LabLegacyTempFiles
{
    private static readonly string[] s_folders = ["payloads", "static"];

    /// <summary>Removes the leftovers under <paramref name="dataDirectory"/>; returns how many.</summary>
    public static int Delete(string dataDirectory)
    {
        var lab = Path.Combine(Path.GetFullPath(dataDirectory), "lab");
        if (!IsPlainFolder(lab))
        {
            return 0;
        }

        var removed = 0;
        foreach (var name in s_folders)
        {
            var folder = new DirectoryInfo(Path.Combine(lab, name));
            if (!IsPlainFolder(folder.FullName))
            {
                continue;
            }

            foreach (var file in folder.EnumerateFiles(".*.tmp"))
            {
                if (file.LinkTarget is null && OlderTempName().IsMatch(file.Name))
                {
                    file.Delete();
                    removed++;
                }
            }
        }

        return removed;
    }

    /// <summary>An existing folder that is not a symbolic link (the lab's folders are the lab's own; a link leads elsewhere).</summary>
    private static bool IsPlainFolder(string path) => new DirectoryInfo(path) is { Exists: true, LinkTarget: null };

    // DeterministicPayload.WriteFile's temp name before .freight-tmp: $".{Path.GetFileName(path)}.{Guid.NewGuid():N}.tmp",
    // for LabPayloads' payload-{seed}-{size}.bin and LabStaticFiles' {size}.bin.
    [GeneratedRegex(@"^\.(payload-[0-9]+-[0-9]+|[0-9]+)\.bin\.[0-9a-f]{32}\.tmp\z", RegexOptions.CultureInvariant)]
    private static partial Regex OlderTempName();
}
