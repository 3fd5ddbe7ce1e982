using System.Text;

namespace Freight.Tests.Digests;

/// <summary>
/// The representation data of RFC 9530's examples and its published digests, checked independently with
/// <c>printf '{"hello": "world"}' | openssl dgst -sha256 -binary | base64</c> (and -sha512).
/// </summary>
internal static class Rfc9530Examples
{
    public const string Sha256 = "X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=";
    public const string Sha512 = "WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==";

    /// <summary>The example field value carrying both digests.</summary>
    public const string BothDigests = "sha-256=:" + Sha256 + ":, sha-512=:" + Sha512 + ":";

    /// <summary><c>{"hello": "world"}</c>, no trailing newline.</summary>
    public static byte[] HelloWorld => Encoding.ASCII.GetBytes("{\"hello\": \"world\"}");
}
