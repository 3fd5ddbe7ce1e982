using System.Net;
using System.Runtime.ExceptionServices;
using Freight.AspNetCore.Errors;
using Freight.Server.Tests.Files;
using Freight.Server.Tests.Infrastructure;
using static Freight.Server.Tests.Files.FilesApi;

namespace Freight.Server.Tests.Errors;

/// <summary>
/// The refusals any client can send at will — a file that is not there, a read's failed precondition, a range past
/// the end — are answered as problems without throwing: each throw cost two first-chance exceptions or more, which a
/// flood of 404s turned into a quarter of the server's CPU. Counted by the problem's own detail (the key is unique),
/// so the other tests running beside these do not count.
/// </summary>
public sealed class RefusalCostTests(FileSystemFilesServer server) : IClassFixture<FileSystemFilesServer>
{
    [Fact]
    public async Task Get_MissingFile_404ProblemWithoutAnException()
    {
        var key = $"{NewRoot()}/missing.bin";

        var (response, thrown) = await SendCountingAsync(key, HttpMethod.Get);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
        Assert.Equal(0, thrown);
    }

    [Fact]
    public async Task Delete_MissingFile_404ProblemWithoutAnException()
    {
        var key = $"{NewRoot()}/missing.bin";

        var (response, thrown) = await SendCountingAsync(key, HttpMethod.Delete);

        await ProblemAssert.IsProblemAsync(response, HttpStatusCode.NotFound);
        Assert.Equal(0, thrown);
    }

    [Theory]
    [InlineData("If-Match", "\"other\"", HttpStatusCode.PreconditionFailed)]
    [InlineData("Range", "bytes=5000-", HttpStatusCode.RequestedRangeNotSatisfiable)]
    public async Task Get_FailedPreconditionOrRange_ProblemWithoutAnException(string header, string value, HttpStatusCode status)
    {
        var key = $"{NewRoot()}/present.bin";
        await CreateAsync(server, key, Content(1000, seed: 17));

        var (response, thrown) = await SendCountingAsync(key, HttpMethod.Get, (header, value));

        await ProblemAssert.IsProblemAsync(response, status);
        Assert.Equal(0, thrown);
    }

    [Theory]
    [InlineData("If-Match", "\"other\"", HttpStatusCode.PreconditionFailed, "The file's current state does not meet If-Match / If-None-Match")]
    [InlineData("If-None-Match", "*", HttpStatusCode.PreconditionFailed, "The file's current state does not meet If-Match / If-None-Match")]
    [InlineData("Content-Encoding", "gzip", HttpStatusCode.UnsupportedMediaType, "Send the file without Content-Encoding.")]
    public async Task Put_RefusedBeforeItsBody_ProblemWithoutAnExceptionAndTheFileKept(string header, string value, HttpStatusCode status, string detail)
    {
        var key = $"{NewRoot()}/present.bin";
        var original = Content(1000, seed: 18);
        await CreateAsync(server, key, original);

        // No other request of the suite answers these details by throwing (a user's route throws them: none runs here).
        var (response, thrown) = await ProblemsThrown.WhileAsync(
            problem => problem.Message.StartsWith(detail, StringComparison.Ordinal),
            async () =>
            {
                using var request = server.Request(HttpMethod.Put, Protocol.Http11, "/files/" + key);
                request.Content = new ByteArrayContent(Content(1000, seed: 19));
                Assert.True(request.Headers.TryAddWithoutValidation(header, value) || request.Content.Headers.TryAddWithoutValidation(header, value), header);
                return await server.Client.SendAsync(request);
            });

        using (response)
        {
            await ProblemAssert.IsProblemAsync(response, status);
            Assert.Equal(0, thrown);
        }

        await AssertStoredAsync(server, key, original);
    }

    /// <summary>
    /// The response, and how many <see cref="ProblemException"/>s of its refusal were thrown meanwhile. A read's 412 and
    /// 416 name no key; no other request of the suite answers them by throwing either.
    /// </summary>
    private Task<(HttpResponseMessage Result, int Thrown)> SendCountingAsync(string key, HttpMethod method, params (string Name, string Value)[] headers) =>
        ProblemsThrown.WhileAsync(
            problem => problem.Message.Contains(key, StringComparison.Ordinal) || problem.Status == 416
                || problem.Message.StartsWith("The file's current state does not meet If-Match / If-Unmodified-Since", StringComparison.Ordinal),
            () => SendAsync(server, method, "/files/" + key, headers));
}

/// <summary>Counts the first-chance <see cref="ProblemException"/>s (any thread) that match, while a request runs.</summary>
internal static class ProblemsThrown
{
    public static async Task<(T Result, int Thrown)> WhileAsync<T>(Func<ProblemException, bool> counts, Func<Task<T>> action)
    {
        var thrown = 0;
        void Count(object? sender, FirstChanceExceptionEventArgs args)
        {
            if (args.Exception is ProblemException problem && counts(problem))
            {
                Interlocked.Increment(ref thrown);
            }
        }

        AppDomain.CurrentDomain.FirstChanceException += Count;
        try
        {
            var result = await action();
            return (result, Volatile.Read(ref thrown));
        }
        finally
        {
            AppDomain.CurrentDomain.FirstChanceException -= Count;
        }
    }
}

/// <summary>A request without a token, or with one that may not do what it asks, is refused without a throw too.</summary>
public sealed class RefusalCostTokenTests(TokenFilesServer server) : IClassFixture<TokenFilesServer>
{
    [Theory]
    [InlineData("GET", null, HttpStatusCode.Unauthorized)]
    [InlineData("PUT", TokenFilesServer.ReadToken, HttpStatusCode.Forbidden)]
    [InlineData("DELETE", "not-a-token", HttpStatusCode.Unauthorized)]
    public async Task Request_NotAllowed_401Or403ProblemWithoutAnException(string method, string? token, HttpStatusCode status)
    {
        var path = $"/files/{NewRoot()}/guarded.bin";
        (string, string)[] headers = token is null ? [] : [("Authorization", "Bearer " + token)];

        // No other request of the suite answers a 401 or 403 by throwing either.
        var (response, thrown) = await ProblemsThrown.WhileAsync(problem => problem.Status is 401 or 403, () => SendAsync(server, new HttpMethod(method), path, headers));

        using (response)
        {
            await ProblemAssert.IsProblemAsync(response, status);
            Assert.StartsWith("Bearer", Assert.Single(response.Headers.WwwAuthenticate).ToString(), StringComparison.Ordinal);
            Assert.Equal(0, thrown);
        }
    }
}
