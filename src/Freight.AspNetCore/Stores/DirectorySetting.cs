namespace Freight.AspNetCore.Stores;

/// <summary>How a refused directory (<see cref="UnusableDirectory"/>) is named to whoever configured it.</summary>
/// <param name="Key">The configuration key, first in the message, e.g. <c>Freight:FileSystem:RootDirectory</c>.</param>
/// <param name="ChooseWith">How another directory is given, after "choose a directory": <c>in KEY</c>, or serve's <c>with --data-dir DIR</c>.</param>
/// <param name="Writer">Who writes there: "the app", or "the server".</param>
internal sealed record DirectorySetting(string Key, string ChooseWith, string Writer)
{
    /// <summary>A key of an app's configuration (or its <c>configure</c> delegate).</summary>
    public static DirectorySetting OfApp(string key) => new(key, "in " + key, "the app");

    /// <summary>A key of <c>freight serve</c>'s, given on its command line as <paramref name="option"/>.</summary>
    public static DirectorySetting OfServe(string key, string option) => new(key, $"with {option} DIR", "the server");
}
