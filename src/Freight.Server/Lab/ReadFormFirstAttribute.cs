using Freight.AspNetCore.Files;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc.Filters;
using Microsoft.Extensions.DependencyInjection;

namespace Freight.Server.Lab;

/// <summary>
/// Reads the request form before model binding. MVC's form value provider turns every failure to read
/// the form into a 400 validation problem, a body over the size limit included; read here first, the
/// limit's <see cref="BadHttpRequestException"/> reaches ProblemMiddleware and becomes the 413 every other
/// upload answers, and a read the host's stop cut (its body followed as the files API's uploads are) the 503.
/// Other failures are left to model binding as before (the form feature keeps the failed read).
/// </summary>
[AttributeUsage(AttributeTargets.Class | AttributeTargets.Method)]
internal sealed class ReadFormFirstAttribute : Attribute, IAsyncResourceFilter
{
    public async Task OnResourceExecutionAsync(ResourceExecutingContext context, ResourceExecutionDelegate next)
    {
        var request = context.HttpContext.Request;
        // The form is read from Request.Body, which Freight's minimum rate would not see: Kestrel's stays.
        using var body = context.HttpContext.RequestServices.GetRequiredService<UploadLimiter>().Follow(context.HttpContext, rated: false);
        if (request.HasFormContentType)
        {
            try
            {
                await request.ReadFormAsync(context.HttpContext.RequestAborted);
            }
            catch (Exception malformed) when (malformed is not (BadHttpRequestException or OperationCanceledException))
            {
                // Reported by model binding as a 400 validation problem, the stock behaviour.
            }
        }

        await next();
    }
}
