using Freight.Storage;

namespace Freight.AspNetCore.Files;

/// <summary>
/// The files API's store (<see cref="ObjectStoreKeys.Files"/>) as every Freight route uses it, its calls timed and
/// traced: a singleton, so the store is wrapped once for the app rather than on each request of a route of your own.
/// </summary>
internal sealed record FilesStore(IObjectStore Instrumented);
