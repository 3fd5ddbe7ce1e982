namespace Freight.Storage;

/// <summary>The service keys Freight's stores are registered under, so an app's own <see cref="IObjectStore"/> never collides.</summary>
public static class ObjectStoreKeys
{
    /// <summary>
    /// The store the files API and tus keep files in (<c>[FromKeyedServices(ObjectStoreKeys.Files)] IObjectStore</c>);
    /// registered by <c>AddFreightFileSystemStore</c>, <c>AddFreightMemoryStore</c> or <c>AddFreightS3Store</c>.
    /// </summary>
    public const string Files = "files";
}
