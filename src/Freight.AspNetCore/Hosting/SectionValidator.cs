using System.Collections;
using System.Reflection;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Options;

namespace Freight.AspNetCore.Hosting;

/// <summary>
/// Validates options bound from one configuration section, each failure naming its key under that section
/// (e.g. <c>Freight:Files:MaxFileBytes is -1: ...</c>); with <c>ValidateOnStart</c>, an invalid option stops the host.
/// It also refuses one value given for a list (<c>WriteTokens=T</c> instead of <c>WriteTokens:0=T</c>): the binder drops
/// it without a word, and for the token lists that left the files API open to anyone.
/// </summary>
internal sealed class SectionValidator<TOptions>(string section, Action<TOptions, string, List<string>> validate, IConfiguration? configuration = null) : IValidateOptions<TOptions>
    where TOptions : class
{
    /// <summary>The options' list-valued properties, which the binder fills only from indexed keys.</summary>
    private static readonly string[] s_lists = typeof(TOptions).GetProperties(BindingFlags.Public | BindingFlags.Instance)
        .Where(static property => property.PropertyType != typeof(string) && typeof(IEnumerable).IsAssignableFrom(property.PropertyType))
        .Select(static property => property.Name)
        .ToArray();

    public ValidateOptionsResult Validate(string? name, TOptions options)
    {
        if (name != Options.DefaultName)
        {
            return ValidateOptionsResult.Skip;
        }

        var errors = new List<string>();
        foreach (var list in s_lists)
        {
            if (configuration?.GetSection(section).GetSection(list).Value is not null)
            {
                errors.Add($"{section}:{list} is a list: give each value its index ({section}:{list}:0, :1, … or a JSON array); one value without an index is not read.");
            }
        }

        validate(options, section, errors);
        return errors.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(errors);
    }
}
