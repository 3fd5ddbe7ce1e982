using Freight.Fuzz;
using SharpFuzz;

// Usage: Freight.Fuzz TARGET             under afl-fuzz: SharpFuzz's fork server feeds inputs (scripts/fuzz.sh)
//        Freight.Fuzz TARGET PATH...     run each file (or every file in each folder) once and report what escapes
if (args.Length == 0 || !FuzzTargets.TryGet(args[0], out var target))
{
    Console.Error.WriteLine($"usage: Freight.Fuzz TARGET [FILE|DIR...]; targets: {string.Join(", ", FuzzTargets.Names)}");
    return 2;
}

if (args.Length == 1)
{
    // Out of process: a fault that kills the runtime (stack overflow, fail-fast) is reported to AFL++ as a crash
    // and the child restarts, instead of taking the fork server down with it.
    Fuzzer.OutOfProcess.Run(stream => target.Run(FuzzInput.ReadAll(stream)));
    return 0;
}

return FuzzReplay.Run(target, args.AsSpan(1));
