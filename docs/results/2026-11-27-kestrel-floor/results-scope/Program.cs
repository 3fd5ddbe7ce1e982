// A user's app: FreightResults.File for /lab/static/freight/{name} from FLOOR_DIR; GET /alloc: bytes allocated so far.
using Freight.AspNetCore.Results;
using Freight.Downloads;

var url = args[Array.IndexOf(args, "--urls") + 1];
var dir = Environment.GetEnvironmentVariable("FLOOR_DIR")!;
var builder = WebApplication.CreateSlimBuilder();
builder.Logging.ClearProviders();
builder.WebHost.UseUrls(url);
builder.Services.AddSingleton(new FileCache());
var app = builder.Build();
app.MapGet("/lab/static/freight/{name}", (string name) => FreightResults.File(Path.Combine(dir, Path.GetFileName(name))));
app.MapGet("/alloc", () => GC.GetTotalAllocatedBytes(true).ToString());
app.Run();
