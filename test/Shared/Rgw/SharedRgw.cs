namespace Freight.Testing.Rgw;

/// <summary>
/// One RGW for the whole test process, started by the first test that asks and stopped when the process exits
/// (xunit 2 has no assembly fixtures). Fixtures and tests take a bucket of their own on it (<see cref="RgwBucket"/>).
/// Never skipped: when install or start fails, every caller fails with the scripts' output.
/// </summary>
public static class SharedRgw
{
    private static readonly Lazy<Task<RgwProcess>> s_rgw = new(StartAsync);

    /// <summary>The process's RGW, started on first use (~3 s; ~30 s more when it must install).</summary>
    public static Task<RgwProcess> GetAsync() => s_rgw.Value;

    /// <summary>A new bucket on the process's RGW; dispose it to delete it and free its space.</summary>
    public static async Task<RgwBucket> CreateBucketAsync(string hint) => await RgwBucket.CreateAsync(await GetAsync(), hint);

    private static async Task<RgwProcess> StartAsync()
    {
        var rgw = await RgwProcess.StartAsync();

        // Synchronous: ProcessExit handlers cannot await. RgwProcess's watchdog covers a host killed before this runs.
        AppDomain.CurrentDomain.ProcessExit += (_, _) => rgw.Stop();
        return rgw;
    }
}
