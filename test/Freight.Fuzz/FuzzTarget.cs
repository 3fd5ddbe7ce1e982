namespace Freight.Fuzz;

/// <summary>
/// One fuzzing harness: feeds an input to a parser and checks what the parser promises. Only the parser's
/// documented refusal may escape it; any other exception, and a broken invariant
/// (<see cref="InvariantViolationException"/>), is a crash for AFL++.
/// </summary>
internal interface IFuzzTarget
{
    /// <summary>The name on the command line and the corpus folder: <c>test/Freight.Fuzz/corpus/{Name}</c>.</summary>
    string Name { get; }

    void Run(ReadOnlySpan<byte> input);
}

/// <summary>Every harness, by name.</summary>
internal static class FuzzTargets
{
    private static readonly IFuzzTarget[] s_all =
    [
        new MultipartTarget(),
        new ByteRangeTarget(),
        new DigestFieldsTarget(),
        new TusHeadersTarget(),
        new StorageKeyTarget(),
    ];

    public static IEnumerable<string> Names => s_all.Select(target => target.Name);

    public static bool TryGet(string name, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out IFuzzTarget? target)
    {
        target = s_all.FirstOrDefault(candidate => candidate.Name == name);
        return target is not null;
    }
}

/// <summary>A parser broke one of its promises on a fuzzed input.</summary>
internal sealed class InvariantViolationException : Exception
{
    public InvariantViolationException()
    {
    }

    public InvariantViolationException(string message)
        : base(message)
    {
    }

    public InvariantViolationException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}

internal static class Invariant
{
    public static void Check([System.Diagnostics.CodeAnalysis.DoesNotReturnIf(false)] bool condition, string promise)
    {
        if (!condition)
        {
            throw new InvariantViolationException(promise);
        }
    }
}
