// Hashes 1 GiB as 1,024 appends of 1 MiB with System.IO.Hashing's XxHash128, from one hot 1 MiB buffer and from a
// 256 MiB buffer walked in order (out of cache); prints GB/s (10^9 bytes/s, wall) of each, ROUNDS times, then the
// package's version. Build it twice, with <PackageReference Include="System.IO.Hashing" Version="10.0.0|11.0.0" />.
using System.Diagnostics;
using System.IO.Hashing;
var rounds = int.Parse(args[0]);
var hot = new byte[1 << 20]; new Random(1).NextBytes(hot);
var big = new byte[256 << 20]; new Random(2).NextBytes(big);
double Run(bool cold)
{
    var h = new XxHash128();
    var t = Stopwatch.StartNew();
    for (int i = 0; i < 1024; i++)
    {
        var span = cold ? big.AsSpan((i % 256) << 20, 1 << 20) : hot.AsSpan();
        h.Append(span);
    }
    _ = h.GetCurrentHashAsUInt128();
    return (1L << 30) / t.Elapsed.TotalSeconds / 1e9;
}
for (int w = 0; w < 3; w++) { Run(false); Run(true); }
for (int r = 0; r < rounds; r++) Console.WriteLine($"{Run(false):F1} {Run(true):F1}");
Console.WriteLine(typeof(XxHash128).Assembly.GetName().Version);
