// usage: dotnet run reader.cs -- URL GETS BUFFER_BYTES EXPECTED_LENGTH ; prints bytes and seconds
using System.Diagnostics;
var url = new Uri(args[0]); var gets = int.Parse(args[1]); var size = int.Parse(args[2]); var expected = long.Parse(args[3]);
using var client = new HttpClient(new SocketsHttpHandler { AutomaticDecompression = System.Net.DecompressionMethods.None });
var buffer = new byte[size];
long total = 0; var clock = Stopwatch.StartNew();
for (var i = 0; i < gets; i++)
{
    using var response = await client.GetAsync(url, HttpCompletionOption.ResponseHeadersRead);
    response.EnsureSuccessStatusCode();
    await using var body = await response.Content.ReadAsStreamAsync();
    long got = 0; int read;
    while ((read = await body.ReadAsync(buffer)) > 0) got += read;
    if (got != expected) throw new Exception($"got {got}");
    total += got;
}
Console.WriteLine($"{total} {clock.Elapsed.TotalSeconds:F3}");
