using System.Diagnostics;
using System.IO.Compression;
using System.Reflection;
using System.Runtime.Loader;
using System.Xml.Linq;

namespace Freight.Tests.Packaging;

/// <summary>
/// Packs the three packages the way a release does (<c>dotnet pack -c Release</c>) into a temp folder and looks inside:
/// each holds its own assembly (with XML docs and a README) and nothing else, no lab code ships, and only the S3
/// package depends on the AWS SDK.
/// </summary>
public sealed class PackagesTests : IDisposable
{
    private static readonly string[] s_packages = ["Freight", "Freight.AspNetCore", "Freight.Storage.S3"];

    private readonly string _folder = Path.Combine(Path.GetTempPath(), "freight-packages-tests", Guid.NewGuid().ToString("N"));

    public void Dispose()
    {
        if (Directory.Exists(_folder))
        {
            Directory.Delete(_folder, recursive: true);
        }
    }

    [Fact]
    public async Task Pack_ThreePackages_HoldTheirAssembliesAndNoLabType()
    {
        var root = RepositoryRoot();
        foreach (var package in s_packages)
        {
            await PackAsync(root, package);
        }

        var libraries = Path.Combine(_folder, "lib");
        foreach (var package in s_packages)
        {
            using var nupkg = ZipFile.OpenRead(Path.Combine(_folder, $"{package}.0.1.0.nupkg"));
            var entries = nupkg.Entries.Select(entry => entry.FullName).ToList();
            Assert.Equal([$"lib/net10.0/{package}.dll", $"lib/net10.0/{package}.xml"], entries.Where(name => name.StartsWith("lib/", StringComparison.Ordinal)).Order(StringComparer.Ordinal));
            Assert.Contains("README.md", entries);
            Assert.DoesNotContain(entries, name => name.Contains("Lab", StringComparison.Ordinal));

            var nuspec = XDocument.Load(nupkg.GetEntry($"{package}.nuspec")!.Open());
            var dependencies = nuspec.Descendants().Where(element => element.Name.LocalName == "dependency").Select(element => (string)element.Attribute("id")!).ToList();
            Assert.Equal(package == "Freight.Storage.S3", dependencies.Contains("AWSSDK.S3"));
            Assert.DoesNotContain("Freight.Lab", dependencies);
            nupkg.GetEntry($"lib/net10.0/{package}.dll")!.ExtractToFile(Path.Combine(Directory.CreateDirectory(libraries).FullName, $"{package}.dll"));
        }

        var context = new AssemblyLoadContext("packed", isCollectible: true);
        // The packed Freight*.dll from the packages, everything else (the framework, the AWS SDK) as this process has it.
        context.Resolving += (_, name) => File.Exists(Path.Combine(libraries, name.Name + ".dll")) ? context.LoadFromAssemblyPath(Path.Combine(libraries, name.Name + ".dll")) : null;
        try
        {
            foreach (var package in s_packages)
            {
                var assembly = context.LoadFromAssemblyPath(Path.Combine(libraries, package + ".dll"));
                var types = assembly.GetTypes();
                Assert.NotEmpty(types);
                Assert.DoesNotContain(types, type => type.Namespace?.StartsWith("Freight.Lab", StringComparison.Ordinal) == true || type.Name.Contains("Lab", StringComparison.Ordinal));
                Assert.DoesNotContain(assembly.GetReferencedAssemblies(), reference => reference.Name == "Freight.Lab");
            }

            var aspNetCore = context.Assemblies.Single(assembly => assembly.GetName().Name == "Freight.AspNetCore");
            Assert.DoesNotContain(aspNetCore.GetReferencedAssemblies(), reference => reference.Name?.StartsWith("AWSSDK", StringComparison.Ordinal) == true);
            Assert.NotNull(aspNetCore.GetType("Microsoft.Extensions.DependencyInjection.FreightServiceCollectionExtensions"));
            Assert.NotNull(context.Assemblies.Single(assembly => assembly.GetName().Name == "Freight.Storage.S3").GetType("Microsoft.Extensions.DependencyInjection.FreightS3ServiceCollectionExtensions"));
        }
        finally
        {
            context.Unload();
        }
    }

    private async Task PackAsync(string root, string project)
    {
        var start = new ProcessStartInfo("dotnet", ["pack", Path.Combine(root, "src", project), "-c", "Release", "-o", _folder, "--nologo", "-v", "q"])
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        using var pack = Process.Start(start)!;
        var output = pack.StandardOutput.ReadToEndAsync();
        var error = pack.StandardError.ReadToEndAsync();
        await pack.WaitForExitAsync();
        Assert.True(pack.ExitCode == 0, $"dotnet pack {project} exited {pack.ExitCode}: {await output}{await error}");
    }

    private static string RepositoryRoot()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "Freight.slnx")))
            {
                return directory.FullName;
            }
        }

        throw new InvalidOperationException("The repository root (Freight.slnx) is not above the test's directory.");
    }
}
