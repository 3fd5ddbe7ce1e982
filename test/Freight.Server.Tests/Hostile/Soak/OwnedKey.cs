namespace Freight.Server.Tests.Hostile.Soak;

/// <summary>
/// A key only one client writes: the client is sequential, so the model is exact — after each answer the key
/// holds <see cref="Current"/> (null: absent) and every read must show exactly that.
/// </summary>
internal sealed class OwnedKey(string name)
{
    public string Name { get; } = name;

    public StoredVersion? Current { get; set; }
}
