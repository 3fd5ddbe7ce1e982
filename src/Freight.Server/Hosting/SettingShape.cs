using System.ComponentModel;
using System.Globalization;
using System.Numerics;
using System.Reflection;
using Freight.Lab.Text;
using Microsoft.Extensions.Configuration;

namespace Freight.Server.Hosting;

/// <summary>
/// The keys an options type binds from configuration, read from the type as the configuration binder reads it: a
/// property with a public setter whose type converts from a string is one value; a list or an array takes its items
/// as children (<c>:0</c>, <c>:1</c>, …); a dictionary takes any child key; any other class is a section of its own
/// properties. <see cref="Check"/> holds a configuration section against it, because the binder drops what does not
/// fit without a word: a value given on a list key (<c>--Freight:Files:WriteTokens TOKEN</c> bound no token, leaving
/// the files API open) or a key no property binds (a typo).
/// </summary>
internal sealed class SettingShape
{
    // Deeper than any options type here; only guards against a type that contains itself.
    private const int MaxDepth = 8;

    private static readonly Type[] s_integers = [typeof(byte), typeof(sbyte), typeof(short), typeof(ushort), typeof(int), typeof(uint), typeof(long), typeof(ulong)];

    private readonly Kind _kind;
    private readonly Type? _valueType;
    private readonly SettingShape? _item;
    private readonly Dictionary<string, SettingShape> _keys = new(StringComparer.OrdinalIgnoreCase);

    private SettingShape(Kind kind, Type? valueType = null, SettingShape? item = null)
    {
        _kind = kind;
        _valueType = valueType;
        _item = item;
    }

    private enum Kind
    {
        Value,
        List,
        Map,
        Section,
    }

    /// <summary>Tells what a key of the checked section that binds nothing is: (the key as given, the known key it is closest to, if any) → the failure.</summary>
    public delegate string UnknownKey(string key, string? closest);

    /// <summary>The keys <paramref name="type"/> binds.</summary>
    public static SettingShape Of(Type type) => Of(type, 0);

    /// <summary>Adds the keys <paramref name="shape"/> binds at <paramref name="path"/> (relative, <c>:</c>-separated) to this section's, as a second options type bound from the same configuration.</summary>
    public SettingShape Add(string path, SettingShape shape)
    {
        var at = this;
        foreach (var key in path.Split(':'))
        {
            if (!at._keys.TryGetValue(key, out var next))
            {
                next = new SettingShape(Kind.Section);
                at._keys[key] = next;
            }

            at = next;
        }

        at.Merge(shape);
        return this;
    }

    /// <summary>Adds a failure to <paramref name="failures"/> for each setting of <paramref name="section"/> that would not bind as given.</summary>
    public void Check(IConfigurationSection section, List<string> failures, UnknownKey unknown)
    {
        switch (_kind)
        {
            case Kind.Section:
                if (!string.IsNullOrEmpty(section.Value))
                {
                    failures.Add($"{section.Path} holds settings, not a value: set its keys, e.g. --{section.Path}:{_keys.Keys.First()} VALUE.");
                }

                foreach (var child in section.GetChildren())
                {
                    if (_keys.TryGetValue(child.Key, out var shape))
                    {
                        shape.Check(child, failures, unknown);
                    }
                    else
                    {
                        // One failure for the key as named, keys below it or not: the typo is in its name
                        // (--Freight:Filez:WriteTokens:0 T --Freight:Filez:ReadTokens:0 R is one Freight:Filez, not two).
                        var closest = Closest(child.Key);
                        failures.Add(unknown(child.Path, closest is null ? null : section.Path + ":" + closest));
                    }
                }

                break;
            case Kind.List:
                if (!string.IsNullOrEmpty(section.Value))
                {
                    failures.Add(ListGivenAValue(section.Path));
                }

                foreach (var item in section.GetChildren())
                {
                    _item!.Check(item, failures, unknown);
                }

                break;
            case Kind.Map:
                foreach (var entry in section.GetChildren())
                {
                    _item!.Check(entry, failures, unknown);
                }

                break;
            default:
                if (section.Value is { } value && !Converts(section, _valueType!))
                {
                    failures.Add($"{section.Path}: '{value}' {Needs(_valueType!, section.Key, value)}.");
                }

                foreach (var below in section.GetChildren())
                {
                    foreach (var key in Leaves(below))
                    {
                        failures.Add($"{key} is not a setting: {section.Path} takes one value, with no keys below it.");
                    }
                }

                break;
        }
    }

    /// <summary>Whether the binder takes <paramref name="section"/>'s value for a <paramref name="type"/>: asked of the binder itself, so both agree.</summary>
    private static bool Converts(IConfigurationSection section, Type type)
    {
        try
        {
            section.Get(type);
            return true;
        }
        catch (InvalidOperationException)
        {
            return false;
        }
    }

    /// <summary>What a value for <paramref name="type"/> must be, in an operator's words (the binder's name .NET types: 'System.Int64').</summary>
    private static string Needs(Type type, string key, string value)
    {
        var underlying = Nullable.GetUnderlyingType(type) ?? type;
        if (underlying == typeof(bool))
        {
            return "is not true or false";
        }

        if (underlying == typeof(TimeSpan))
        {
            return "is not a time span: hh:mm:ss, or d.hh:mm:ss (00:00:30 is 30 seconds)";
        }

        if (underlying.IsEnum)
        {
            return $"is not one of {string.Join(", ", Enum.GetNames(underlying))}";
        }

        if (underlying == typeof(double) || underlying == typeof(float) || underlying == typeof(decimal))
        {
            return "is not a number";
        }

        if (Array.IndexOf(s_integers, underlying) < 0)
        {
            return "is not a value this setting takes";
        }

        // Kestrel's byte limits are ...Size, Freight's ...Bytes.
        var unit = key.EndsWith("Bytes", StringComparison.OrdinalIgnoreCase) || key.EndsWith("Size", StringComparison.OrdinalIgnoreCase) ? " of bytes" : "";
        if (!BigInteger.TryParse(value.Trim(), NumberStyles.Integer, CultureInfo.InvariantCulture, out var number))
        {
            return $"is not a whole number{unit}";
        }

        var min = Convert.ToDecimal(underlying.GetField("MinValue")!.GetValue(null), CultureInfo.InvariantCulture);
        var max = Convert.ToDecimal(underlying.GetField("MaxValue")!.GetValue(null), CultureInfo.InvariantCulture);
        return number > 0
            ? string.Create(CultureInfo.InvariantCulture, $"is too large: at most {max}")
            : string.Create(CultureInfo.InvariantCulture, $"is too small: at least {min}");
    }

    private static SettingShape Of(Type type, int depth)
    {
        var underlying = Nullable.GetUnderlyingType(type) ?? type;
        if (TypeDescriptor.GetConverter(underlying).CanConvertFrom(typeof(string)))
        {
            return new SettingShape(Kind.Value, type);
        }

        if (underlying.IsArray)
        {
            return new SettingShape(Kind.List, item: Of(underlying.GetElementType()!, depth + 1));
        }

        if ((Implemented(underlying, typeof(IDictionary<,>)) ?? Implemented(underlying, typeof(IReadOnlyDictionary<,>))) is { } dictionary)
        {
            return new SettingShape(Kind.Map, item: Of(dictionary.GetGenericArguments()[1], depth + 1));
        }

        if (Implemented(underlying, typeof(IEnumerable<>)) is { } enumerable)
        {
            return new SettingShape(Kind.List, item: Of(enumerable.GetGenericArguments()[0], depth + 1));
        }

        var section = new SettingShape(Kind.Section);
        if (depth >= MaxDepth)
        {
            return section;
        }

        foreach (var property in underlying.GetProperties(BindingFlags.Public | BindingFlags.Instance))
        {
            if (property.GetMethod is not { IsPublic: true } || property.GetIndexParameters().Length > 0)
            {
                continue;
            }

            // The binder sets a value through its setter; it fills a section or a list it can get, settable or not.
            var shape = Of(property.PropertyType, depth + 1);
            var binds = shape._kind == Kind.Value ? property.SetMethod is { IsPublic: true } : shape.HasKeys;
            if (binds)
            {
                section._keys[property.GetCustomAttribute<ConfigurationKeyNameAttribute>()?.Name ?? property.Name] = shape;
            }
        }

        return section;
    }

    private bool HasKeys => _kind != Kind.Section || _keys.Count > 0;

    private static Type? Implemented(Type type, Type generic) =>
        type.IsGenericType && type.GetGenericTypeDefinition() == generic
            ? type
            : Array.Find(type.GetInterfaces(), each => each.IsGenericType && each.GetGenericTypeDefinition() == generic);

    private void Merge(SettingShape other)
    {
        if (_kind != Kind.Section || other._kind != Kind.Section)
        {
            throw new InvalidOperationException("Only sections merge: two options types bind one key differently.");
        }

        foreach (var (key, shape) in other._keys)
        {
            if (_keys.TryGetValue(key, out var mine))
            {
                mine.Merge(shape);
            }
            else
            {
                _keys[key] = shape;
            }
        }
    }

    /// <summary>
    /// A value given on a list key: the binder takes a list's items only from its children, so the value was dropped
    /// and, for a list of tokens, the files API served everyone. Refused rather than taken as a one-item list: a value
    /// such as <c>a,b</c> could mean one item or two, and the indexed form is the one every source has.
    /// </summary>
    private static string ListGivenAValue(string path)
    {
        var name = path[(path.LastIndexOf(':') + 1)..];
        var item = Singular(name[Math.Max(0, LastUpper(name))..]);
        var environment = path.StartsWith(FreightServerOptions.SectionName + ":", StringComparison.OrdinalIgnoreCase)
            ? $", or FREIGHT_{path[(FreightServerOptions.SectionName.Length + 1)..].Replace(":", "__", StringComparison.Ordinal)}__0={item.ToUpperInvariant()}"
            : "";
        return $"{path} is a list: give each {item} with an index, --{path}:0 {item.ToUpperInvariant()}{environment} (a JSON array in appsettings.json).";
    }

    /// <summary>One of a list named by its plural: Tokens → token, Origins → origin, Proxies → proxy (not "proxie").</summary>
    private static string Singular(string plural)
    {
        var word = plural.ToLowerInvariant();
        if (word.Length > 3 && word.EndsWith("ies", StringComparison.Ordinal))
        {
            return word[..^3] + "y";
        }

        return word.Length > 1 && word.EndsWith('s') ? word[..^1] : "item";
    }

    private static int LastUpper(string name)
    {
        for (var i = name.Length - 1; i >= 0; i--)
        {
            if (char.IsUpper(name[i]))
            {
                return i;
            }
        }

        return 0;
    }

    /// <summary>The keys below <paramref name="section"/> that hold a value (itself, if it does), or itself when none does.</summary>
    private static List<string> Leaves(IConfigurationSection section)
    {
        var leaves = section.AsEnumerable().Where(setting => setting.Value is not null).Select(setting => setting.Key).Order(StringComparer.OrdinalIgnoreCase).ToList();
        return leaves.Count > 0 ? leaves : [section.Path];
    }

    /// <summary>The known key <paramref name="key"/> is likely a typo of (<see cref="ClosestName"/>).</summary>
    private string? Closest(string key) => ClosestName.Find(key, _keys.Keys);
}
