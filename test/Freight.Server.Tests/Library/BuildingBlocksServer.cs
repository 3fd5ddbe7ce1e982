using System.Security.Cryptography;
using Freight.AspNetCore.Files;
using Freight.AspNetCore.Results;
using Freight.AspNetCore.Uploads;
using Freight.Server.Tests.Files;
using Freight.Storage;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;

namespace Freight.Server.Tests.Library;

/// <summary>
/// A Freight server with routes of a user's own made of the library's building blocks: typed file and object
/// results, the streaming multipart parameter and the store call.
/// </summary>
public sealed class BuildingBlocksServer() : FilesServer("--Freight:Files:MaxConcurrentUploadsPerClient", "64")
{
    /// <summary>The folder <c>/my/file/{name}</c> serves from.</summary>
    public string PublicDirectory { get; } = Directory.CreateTempSubdirectory("freight-blocks-").FullName;

    protected override void MapRoutes(WebApplication app)
    {
        // A bug of the app's own: UseFreightProblems answers it as a 500 problem that says nothing of it.
        app.MapMethods("/my/fails", [HttpMethods.Get, HttpMethods.Post], string () => throw new InvalidOperationException("a secret of the app's own"));
        app.MapGet("/my/file/{name}", (string name) => FreightResults.File(Path.Combine(PublicDirectory, Path.GetFileName(name))));
        app.MapGet("/my/report", () => FreightResults.File(Path.Combine(PublicDirectory, "report.bin"), "text/csv", "report 2026.csv"));
        app.MapMethods("/my/object/{*key}", [HttpMethods.Get, HttpMethods.Head], (string key) => FreightResults.Object(key));
        app.MapGet("/my/revalidated/file/{name}", (string name) => FreightResults.File(Path.Combine(PublicDirectory, Path.GetFileName(name)), cacheControl: "no-cache"));
        app.MapGet("/my/revalidated/object/{*key}", (string key) => FreightResults.Object(key, cacheControl: "private, no-cache"));
        app.MapPut("/my/upload/{*key}", async (string key, HttpContext context) =>
        {
            var upload = await FreightUploads.StoreAsync(context, "uploads/" + key);
            return Results.Ok(new { upload.Object.Key, upload.Object.ETag, upload.Created });
        });
        app.MapPut("/my/upload-answered-as-files/{*key}", async (string key, HttpContext context) =>
            Results.Ok(StoredFile.From((await FreightUploads.StoreAsync(context, key)).Object)));
        app.MapPost("/my/photos", async (FreightMultipart form, [FromKeyedServices(ObjectStoreKeys.Files)] IObjectStore store) =>
        {
            var stored = new List<string>();
            var fields = new Dictionary<string, string>();
            var streamed = new Dictionary<string, string>();
            await foreach (var section in form.ReadSectionsAsync())
            {
                if (section.FileName is null)
                {
                    fields[section.Name ?? ""] = await section.ReadAsStringAsync();
                }
                else if (section.Name == "hash-only")
                {
                    // Read through the stream, never stored: the sha-256 of what arrived.
                    streamed[section.FileName] = Convert.ToHexStringLower(await SHA256.HashDataAsync(section.Body));
                }
                else if (section.Name != "skipped")
                {
                    var info = await section.StoreAsync(store, "photos/" + Path.GetFileName(section.FileName));
                    stored.Add(info.Key);
                }
            }

            return Results.Ok(new { stored, fields, streamed });
        });
    }

    protected override Task AfterStopAsync()
    {
        Directory.Delete(PublicDirectory, recursive: true);
        return Task.CompletedTask;
    }
}
