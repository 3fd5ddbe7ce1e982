using System.Text;

namespace Freight.Micro.Headers;

/// <summary>A header value or key to parse; its bytes per operation are its UTF-8 length (header fields arrive as bytes).</summary>
public sealed class TextInput : MicroInput
{
    public TextInput(string name, string label, string text)
        : base(name, label)
    {
        Text = text;
    }

    public string Text { get; }

    public override long BytesPerOperation => Encoding.UTF8.GetByteCount(Text);
}
