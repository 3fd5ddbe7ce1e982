using System.Security.Cryptography;

namespace Freight.Resumable;

/// <summary>Upload ids: 128 random bits as 32 lower-case hex digits. Whoever knows one may write to the upload, so it is not guessable.</summary>
public static class ResumableUploadId
{
    /// <summary>A new random id (32 lower-case hex digits).</summary>
    public static string New() => Convert.ToHexStringLower(RandomNumberGenerator.GetBytes(16));

    /// <summary>True for exactly 32 lower-case hex digits: anything else is no upload (and never becomes a path).</summary>
    public static bool IsValid(string? id)
    {
        if (id is not { Length: 32 })
        {
            return false;
        }

        foreach (var c in id)
        {
            if (!char.IsAsciiDigit(c) && c is not (>= 'a' and <= 'f'))
            {
                return false;
            }
        }

        return true;
    }
}
