using Freight.AspNetCore.Errors;
using Microsoft.AspNetCore.Http;

namespace Freight.Server.Lab;

/// <summary>The lab's refusal of a parameter the client can fix: a 400 problem, like the files API's refusals.</summary>
internal static class LabRequest
{
    public static ProblemException Invalid(string detail, Exception? cause = null) =>
        new(StatusCodes.Status400BadRequest, "Invalid request", detail, cause: cause);
}
