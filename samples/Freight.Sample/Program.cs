// Freight in an ASP.NET Core app of your own: the files API, tus, and two routes built from Freight's building blocks.
// Built from the packages (scripts/sample.sh); docs/library.md explains each call.
using Freight.AspNetCore.Results;
using Freight.AspNetCore.Uploads;
using Freight.Storage;

var builder = WebApplication.CreateBuilder(args);
builder.Services.AddFreightFiles();
builder.Services.AddFreightTus();
// The root comes from Freight:FileSystem:RootDirectory (appsettings.json, or --Freight:FileSystem:RootDirectory=DIR).
builder.Services.AddFreightFileSystemStore();

var app = builder.Build();
// Every error as problem+json: Freight's refusals in the routes below, and what routing answers alone
// (a POST /photos that is not multipart/form-data: 415; an unknown route: 404).
app.UseFreightProblems();
app.MapFreightFiles("/files");
app.MapFreightTus("/tus");

// Streaming multipart: each file part goes straight into the store (hashed, limited, atomic); no IFormFile, no temp file.
app.MapPost("/photos", async (FreightMultipart form, [FromKeyedServices(ObjectStoreKeys.Files)] IObjectStore store) =>
{
    var stored = new List<string>();
    await foreach (var section in form.ReadSectionsAsync())
    {
        if (section.FileName is { } name)
        {
            var photo = await section.StoreAsync(store, "photos/" + Path.GetFileName(name));
            stored.Add(photo.Key);
        }
    }

    return Results.Ok(stored);
});

// A typed result: the stored photo on Freight's file path (ETag, Range, conditionals, Want-Repr-Digest). A photo may be
// uploaded again under its name: no-cache makes a browser ask each time (a 304 while unchanged), as the files API does.
app.MapMethods("/photos/{name}", ["GET", "HEAD"], (string name) => FreightResults.Object("photos/" + name, cacheControl: "no-cache"));

await app.StartAsync();
// Tests and scripts start the sample on port 0 and read the bound address from this line.
foreach (var url in app.Urls)
{
    Console.WriteLine($"listening: {url}");
}

await app.WaitForShutdownAsync();
