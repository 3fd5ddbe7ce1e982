namespace Freight.Lab.Metrics;

/// <summary>
/// Counts the first-chance exceptions of the process (every exception thrown, caught or not), the
/// "exceptions/s" row of the ASP.NET benchmark tables. The runtime exposes no such count, so it is kept
/// from <see cref="AppDomain.FirstChanceException"/>: exceptions thrown before <see cref="Install"/> are not counted.
/// </summary>
public static class ExceptionCounter
{
    private static long s_count;
    private static int s_installed;

    /// <summary>Exceptions thrown since <see cref="Install"/> was first called; 0 before.</summary>
    public static long Count => Interlocked.Read(ref s_count);

    /// <summary>True once <see cref="Install"/> has hooked the event.</summary>
    public static bool IsInstalled => Volatile.Read(ref s_installed) != 0;

    /// <summary>
    /// Starts counting; later calls do nothing. A server calls it at start so the count covers its whole life;
    /// <see cref="RuntimeSnapshot.Capture"/> calls it too, so a process that only reads snapshots still counts.
    /// </summary>
    public static void Install()
    {
        // Cheap check first: Capture calls this once a second and on every /lab/metrics request.
        if (Volatile.Read(ref s_installed) != 0 || Interlocked.Exchange(ref s_installed, 1) != 0)
        {
            return;
        }

        AppDomain.CurrentDomain.FirstChanceException += static (_, _) => Interlocked.Increment(ref s_count);
    }
}
