namespace Freight.Bench.Tests.Peers;

/// <summary>
/// wrk 4.1.0 (Debian bookworm's wrk 4.1.0-3) output captured on the dev machine against local servers with
/// <c>wrk -t1 -cN -dXs --latency URL</c>, stdout and stderr, verbatim.
/// </summary>
internal static class WrkSamples
{
    /// <summary>nginx 1.22.1, a 100,000-byte file, 10 connections: latencies in us and ms, sizes in GB.</summary>
    public const string Ok =
        "Running 2s test @ http://127.0.0.1:18080/f.bin\n" +
        "  1 threads and 10 connections\n" +
        "  Thread Stats   Avg      Stdev     Max   +/- Stdev\n" +
        "    Latency     0.86ms    2.14ms  29.64ms   96.12%\n" +
        "    Req/Sec    14.72k     2.70k   17.95k    75.00%\n" +
        "  Latency Distribution\n" +
        "     50%  484.00us\n" +
        "     75%  592.00us\n" +
        "     90%  822.00us\n" +
        "     99%   12.53ms\n" +
        "  29427 requests in 2.01s, 2.75GB read\n" +
        "Requests/sec:  14613.20\n" +
        "Transfer/sec:      1.36GB\n";

    /// <summary>nginx, a missing file: every response a 404, counted as non-2xx; sizes in MB.</summary>
    public const string NotFound =
        "Running 2s test @ http://127.0.0.1:18080/nope.bin\n" +
        "  1 threads and 10 connections\n" +
        "  Thread Stats   Avg      Stdev     Max   +/- Stdev\n" +
        "    Latency   612.99us    1.13ms  12.67ms   89.44%\n" +
        "    Req/Sec    36.73k    11.42k   49.67k    50.00%\n" +
        "  Latency Distribution\n" +
        "     50%  195.00us\n" +
        "     75%  315.00us\n" +
        "     90%    1.82ms\n" +
        "     99%    5.56ms\n" +
        "  73106 requests in 2.00s, 21.47MB read\n" +
        "  Non-2xx or 3xx responses: 73106\n" +
        "Requests/sec:  36500.95\n" +
        "Transfer/sec:     10.72MB\n";

    /// <summary>nginx killed 1.2 s into a 3 s run: write errors.</summary>
    public const string ServerKilled =
        "Running 3s test @ http://127.0.0.1:18081/f.bin\n" +
        "  1 threads and 10 connections\n" +
        "  Thread Stats   Avg      Stdev     Max   +/- Stdev\n" +
        "    Latency   278.33us  129.85us   1.89ms   68.27%\n" +
        "    Req/Sec    24.95k     8.67k   31.22k    84.62%\n" +
        "  Latency Distribution\n" +
        "     50%  266.00us\n" +
        "     75%  345.00us\n" +
        "     90%  458.00us\n" +
        "     99%  597.00us\n" +
        "  32290 requests in 3.10s, 3.01GB read\n" +
        "  Socket errors: connect 0, read 0, write 97130, timeout 0\n" +
        "Requests/sec:  10416.78\n" +
        "Transfer/sec:      0.97GB\n";

    /// <summary>A server answering after 1.5 s, run with --timeout 1s: timeouts, no latency recorded, sizes in B.</summary>
    public const string SlowServerTimeouts =
        "Running 3s test @ http://127.0.0.1:18083/\n" +
        "  1 threads and 4 connections\n" +
        "  Thread Stats   Avg      Stdev     Max   +/- Stdev\n" +
        "    Latency     0.00us    0.00us   0.00us    -nan%\n" +
        "    Req/Sec     2.00      0.00     2.00    100.00%\n" +
        "  Latency Distribution\n" +
        "     50%    0.00us\n" +
        "     75%    0.00us\n" +
        "     90%    0.00us\n" +
        "     99%    0.00us\n" +
        "  8 requests in 3.01s, 320.00B read\n" +
        "  Socket errors: connect 0, read 0, write 0, timeout 8\n" +
        "Requests/sec:      2.66\n" +
        "Transfer/sec:     106.32B\n";

    /// <summary>A server resetting every connection: read errors, no response, '-nan%' columns.</summary>
    public const string ConnectionsReset =
        "Running 2s test @ http://127.0.0.1:18084/\n" +
        "  1 threads and 4 connections\n" +
        "  Thread Stats   Avg      Stdev     Max   +/- Stdev\n" +
        "    Latency     0.00us    0.00us   0.00us    -nan%\n" +
        "    Req/Sec     0.00      0.00     0.00      -nan%\n" +
        "  Latency Distribution\n" +
        "     50%    0.00us\n" +
        "     75%    0.00us\n" +
        "     90%    0.00us\n" +
        "     99%    0.00us\n" +
        "  0 requests in 2.01s, 0.00B read\n" +
        "  Socket errors: connect 0, read 3667, write 0, timeout 0\n" +
        "Requests/sec:      0.00\n" +
        "Transfer/sec:       0.00B\n";

    /// <summary>The 1.5 s server with wrk's default 2 s timeout: latencies in s, with wrk's trailing spaces on the percentile lines.</summary>
    public const string SlowServerSeconds =
        "Running 4s test @ http://127.0.0.1:18085/\n" +
        "  1 threads and 4 connections\n" +
        "  Thread Stats   Avg      Stdev     Max   +/- Stdev\n" +
        "    Latency     1.50s   181.55us   1.50s    75.00%\n" +
        "    Req/Sec     2.00      0.00     2.00    100.00%\n" +
        "  Latency Distribution\n" +
        "     50%    1.50s \n" +
        "     75%    1.50s \n" +
        "     90%    1.50s \n" +
        "     99%    1.50s \n" +
        "  8 requests in 4.01s, 320.00B read\n" +
        "Requests/sec:      2.00\n" +
        "Transfer/sec:      79.85B\n";

    /// <summary>A refused port: wrk gives up at once (exit code 1) and prints no report.</summary>
    public const string Refused =
        "unable to connect to 127.0.0.1:1 Connection refused\n";
}
