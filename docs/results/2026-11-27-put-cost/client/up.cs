// usage: up URLBASE PID ROUNDS  — PUT 1 GiB from memory as the bench does (StreamContent, 1 MiB reads), server CPU per PUT
using System.Net.Http.Headers;
var baseUrl = args[0].TrimEnd('/'); var pid = int.Parse(args[1]); var rounds = int.Parse(args[2]);
var payload = new byte[1 << 30]; new Random(7).NextBytes(payload);
using var client = new HttpClient(new SocketsHttpHandler()) { Timeout = TimeSpan.FromMinutes(5) };
static long Ticks(int pid) { var f = File.ReadAllText($"/proc/{pid}/stat"); var p = f[(f.LastIndexOf(')') + 2)..].Split(' '); return long.Parse(p[11]) + long.Parse(p[12]); }
for (var i = 0; i < rounds; i++) {
  var uri = $"{baseUrl}/up{Random.Shared.Next()}.bin";
  var before = Ticks(pid); var sw = System.Diagnostics.Stopwatch.StartNew();
  var content = new StreamContent(new MemoryStream(payload, false), 1 << 20); content.Headers.ContentType = new MediaTypeHeaderValue("application/octet-stream");
  using (var r = await client.PutAsync(uri, content)) { r.EnsureSuccessStatusCode(); }
  var secs = sw.Elapsed.TotalSeconds; await Task.Delay(300); var after = Ticks(pid);
  using (var d = await client.DeleteAsync(uri)) { }
  Console.WriteLine($"httpclient cpu_s={(after - before) / 100.0:0.00} MiB/s={1024 / secs:0}");
  await Task.Delay(500);
}
