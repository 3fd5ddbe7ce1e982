using Freight.Storage;

namespace Freight.AspNetCore.Uploads;

/// <summary>A stored upload: the object as committed, and whether the key was new (201) or replaced (204).</summary>
public sealed record FreightUpload(ObjectInfo Object, bool Created);
