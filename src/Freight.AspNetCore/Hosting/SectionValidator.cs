using Microsoft.Extensions.Options;

namespace Freight.AspNetCore.Hosting;

/// <summary>
/// Validates options bound from one configuration section, each failure naming its key under that section
/// (e.g. <c>Freight:Files:MaxFileBytes is -1: ...</c>); with <c>ValidateOnStart</c>, an invalid option stops the host.
/// </summary>
internal sealed class SectionValidator<TOptions>(string section, Action<TOptions, string, List<string>> validate) : IValidateOptions<TOptions>
    where TOptions : class
{
    public ValidateOptionsResult Validate(string? name, TOptions options)
    {
        if (name != Options.DefaultName)
        {
            return ValidateOptionsResult.Skip;
        }

        var errors = new List<string>();
        validate(options, section, errors);
        return errors.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(errors);
    }
}
