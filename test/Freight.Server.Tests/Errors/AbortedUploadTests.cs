using System.Globalization;
using Freight.Server.Tests.Infrastructure;

namespace Freight.Server.Tests.Errors;

/// <summary>
/// A client that goes away mid-upload leaves nothing behind: the in-progress temp file is deleted,
/// no stored file appears, and the server keeps serving.
/// </summary>
public sealed class AbortedUploadTests(LabServer server) : IClassFixture<LabServer>
{
    private const int DeclaredBytes = 10 * Payloads.MiB;

    private const int SentBytes = 1 * Payloads.MiB;

    // Bounded waits for the server to notice, not timing assertions: the tests only need it to happen.
    private static readonly TimeSpan s_patience = TimeSpan.FromSeconds(10);

    public enum Abort
    {
        /// <summary>SO_LINGER 0: the close sends a TCP RST.</summary>
        Reset,

        /// <summary>A plain close: FIN, the body ends short of its Content-Length.</summary>
        Close,
    }

    public static TheoryData<string, Abort> Cases()
    {
        // upload/iformfile is left out: MVC buffers the whole form before the action opens the sink,
        // so an aborted request never reaches the store (ASP.NET Core's own buffer file is its business).
        var cases = new TheoryData<string, Abort>();
        foreach (var variant in LabVariants.Uploads.Where(v => v != "iformfile"))
        {
            cases.Add(variant, Abort.Reset);
            cases.Add(variant, Abort.Close);
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Upload_ClientAbortsMidBody_LeavesNoFileAndKeepsServing(string variant, Abort abort)
    {
        byte[] sent = LabVariants.IsMultipart(variant) ? [.. MultipartBodies.Head(), .. Payloads.Bytes(SentBytes)] : Payloads.Bytes(SentBytes);
        await using var connection = await RawHttpConnection.OpenAsync(server.HttpAddress);
        await connection.SendAsync(RawHttpConnection.Head(
            "POST",
            server.HttpAddress,
            $"/lab/upload/{variant}?sink=file",
            "Content-Type: " + LabVariants.ContentType(variant),
            "Content-Length: " + DeclaredBytes.ToString(CultureInfo.InvariantCulture)));
        await connection.SendAsync(sent);

        // The upload is under way (its temp file has bytes) before the client goes away.
        Assert.True(await EventuallyAsync(() => server.TempFiles() is [var temp] && new FileInfo(temp).Length > 0), "the upload never started writing");
        if (abort == Abort.Reset)
        {
            connection.Reset();
        }
        else
        {
            connection.Close();
        }

        Assert.True(await EventuallyAsync(() => server.TempFiles().Length == 0), "the temp file outlived the request");
        Assert.Empty(server.UploadedFiles());
        await server.AssertServingAsync();
    }

    private static async Task<bool> EventuallyAsync(Func<bool> condition)
    {
        var deadline = DateTime.UtcNow + s_patience;
        while (!condition())
        {
            if (DateTime.UtcNow > deadline)
            {
                return false;
            }

            await Task.Delay(20);
        }

        return true;
    }
}
