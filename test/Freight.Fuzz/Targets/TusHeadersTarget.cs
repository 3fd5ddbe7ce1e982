using System.Text;
using Freight.AspNetCore.Errors;
using Freight.AspNetCore.Tus;
using Microsoft.AspNetCore.Http;

namespace Freight.Fuzz;

/// <summary>
/// The tus request headers (<see cref="TusProtocol"/>): the input's lines are the field lines of Upload-Metadata,
/// Upload-Concat and Upload-Checksum alike. Only a 400 <see cref="ProblemException"/> may escape; accepted metadata
/// has printable ASCII keys and round-trips, and an accepted final concatenation names only valid upload ids.
/// </summary>
internal sealed class TusHeadersTarget : IFuzzTarget
{
    public string Name => "tus-headers";

    public void Run(ReadOnlySpan<byte> input)
    {
        var text = FuzzInput.Latin1(input);
        var context = new DefaultHttpContext();
        context.Request.Headers[TusProtocol.ConcatHeader] = text.Split('\n');
        context.Request.Headers[TusProtocol.ChecksumHeader] = text.Split('\n');

        CheckMetadata(text);
        CheckConcat(context.Request);
        Accepted(() => TusProtocol.Checksum(context.Request));
    }

    private static void CheckMetadata(string header)
    {
        Dictionary<string, string?>? metadata = null;
        if (!Accepted(() => metadata = TusProtocol.Metadata(header)))
        {
            return;
        }

        foreach (var (key, _) in metadata!)
        {
            Invariant.Check(key.Length > 0 && key.All(c => c is > ' ' and <= '~' and not ','), $"metadata key '{key}' is printable ASCII without ',' or space");
        }

        var canonical = string.Join(",", metadata.Select(pair =>
            pair.Value is null ? pair.Key : $"{pair.Key} {Convert.ToBase64String(Encoding.UTF8.GetBytes(pair.Value))}"));
        var again = TusProtocol.Metadata(canonical);
        Invariant.Check(
            again.Count == metadata.Count && metadata.All(pair => again.TryGetValue(pair.Key, out var value) && value == pair.Value),
            "accepted metadata, written canonically, parses to the same");
    }

    private static void CheckConcat(HttpRequest request)
    {
        (bool Partial, IReadOnlyList<string>? FinalParts) concat = default;
        if (!Accepted(() => concat = TusProtocol.Concat(request, new PathString("/tus"))))
        {
            return;
        }

        var header = request.Headers[TusProtocol.ConcatHeader].ToString().Trim();
        if (concat.FinalParts is null)
        {
            Invariant.Check(concat.Partial ? header == "partial" : header.Length == 0, "partial or no concatenation only when the header says so");
            return;
        }

        Invariant.Check(!concat.Partial && header.StartsWith("final;", StringComparison.Ordinal), "a final concatenation only from 'final;'");
        Invariant.Check(concat.FinalParts.Count > 0, "a final concatenation names at least one upload");
        foreach (var id in concat.FinalParts)
        {
            Invariant.Check(Freight.Resumable.ResumableUploadId.IsValid(id), $"'{id}' is a valid upload id");
        }
    }

    /// <summary>Runs <paramref name="parse"/>: true when it accepted the input, false when it refused it with a 400.</summary>
    private static bool Accepted(Action parse)
    {
        try
        {
            parse();
            return true;
        }
        catch (ProblemException problem)
        {
            Invariant.Check(problem.Status == StatusCodes.Status400BadRequest, $"a malformed tus header is a 400, not {problem.Status}");
            return false;
        }
    }
}
