namespace Freight.Micro.Hashing;

/// <summary>A payload size to hash.</summary>
public sealed class HashInput : MicroInput
{
    public HashInput(int bytes, string name, string label)
        : base(name, label)
    {
        BytesPerOperation = bytes;
    }

    public override long BytesPerOperation { get; }
}
