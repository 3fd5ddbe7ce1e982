// Ported from dotnet/runtime System.IO.Hashing (XxHash128.cs, XxHashShared.cs; MIT), itself based on Cyan4973/xxHash.
using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace Freight.Hashing;

/// <summary>
/// XXH3-128 (XXH3_128bits, default secret, seed 0): the value <c>xxhsum -H2</c> prints.
/// Streaming and one-shot hashing give identical results for any split of the input.
/// </summary>
/// <remarks>
/// Written in-house because System.IO.Hashing is not available from our package feed.
/// Not thread-safe: one instance per stream.
/// </remarks>
public sealed class XxHash128
{
    private const int StripeLength = 64;
    private const int SecretLength = 192;
    private const int SecretConsumeRate = 8;
    private const int StripesPerBlock = (SecretLength - StripeLength) / SecretConsumeRate;
    private const int ScrambleSecretOffset = SecretLength - StripeLength;
    private const int LastStripeSecretOffset = SecretLength - StripeLength - 7;
    private const int MergeSecretOffset = 11;
    private const int MidSizeMax = 240;
    private const int BufferLength = 256;
    private const int BufferStripes = BufferLength / StripeLength;

    private const ulong Prime32_1 = 0x9E3779B1U;
    private const ulong Prime32_2 = 0x85EBCA77U;
    private const ulong Prime32_3 = 0xC2B2AE3DU;
    private const ulong Prime64_1 = 0x9E3779B185EBCA87UL;
    private const ulong Prime64_2 = 0xC2B2AE3D27D4EB4FUL;
    private const ulong Prime64_3 = 0x165667B19E3779F9UL;
    private const ulong Prime64_4 = 0x85EBCA77C2B2AE63UL;
    private const ulong Prime64_5 = 0x27D4EB2F165667C5UL;
    private const ulong PrimeMx2 = 0x9FB21C651E98DF25UL;

    private Accumulators _accumulators;
    private InputBuffer _buffer;
    private int _bufferedCount;
    private int _stripesInBlock;
    private long _length;

    public XxHash128() => Reset();

    /// <summary>Total number of bytes appended since construction or the last <see cref="Reset"/>.</summary>
    public long Length => _length;

    /// <summary>The XXH3 default secret (kSecret in xxhash.h).</summary>
    private static ReadOnlySpan<byte> DefaultSecret =>
    [
        0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
        0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
        0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
        0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
        0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
        0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
        0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
        0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
        0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
        0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
        0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
        0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
    ];

    /// <summary>Computes the hash of <paramref name="data"/> in one call.</summary>
    public static UInt128 HashToUInt128(ReadOnlySpan<byte> data)
    {
        ref byte source = ref MemoryMarshal.GetReference(data);
        uint length = (uint)data.Length;
        if (length <= 16)
        {
            return HashLength0To16(ref source, length);
        }

        if (length <= 128)
        {
            return HashLength17To128(ref source, length);
        }

        if (length <= MidSizeMax)
        {
            return HashLength129To240(ref source, length);
        }

        Accumulators accumulators = default;
        ref ulong acc = ref accumulators[0];
        InitializeAccumulators(ref acc);
        ConsumeStripes(ref acc, ref source, (length - 1) / StripeLength, 0);
        Accumulate512(ref acc, ref Unsafe.Add(ref source, length - StripeLength), LastStripeSecretOffset);
        return MergeLong(ref acc, length);
    }

    /// <summary>Formats a hash the way <c>xxhsum -H2</c> prints it: 32 lowercase hex digits, high 64 bits first.</summary>
    public static string ToHex(UInt128 hash)
    {
        Span<byte> bytes = stackalloc byte[16];
        BinaryPrimitives.WriteUInt128BigEndian(bytes, hash);
        return Convert.ToHexStringLower(bytes);
    }

    public void Reset()
    {
        InitializeAccumulators(ref _accumulators[0]);
        _bufferedCount = 0;
        _stripesInBlock = 0;
        _length = 0;
    }

    /// <summary>Adds <paramref name="data"/> to the running hash; large spans are hashed in place, not copied.</summary>
    public void Append(ReadOnlySpan<byte> data)
    {
        _length += data.Length;
        Span<byte> buffer = _buffer;
        int free = BufferLength - _bufferedCount;

        // A full buffer is not consumed yet: the final stripe must be kept for the digest.
        if (data.Length <= free)
        {
            data.CopyTo(buffer[_bufferedCount..]);
            _bufferedCount += data.Length;
            return;
        }

        ref ulong acc = ref _accumulators[0];
        if (_bufferedCount != 0)
        {
            data[..free].CopyTo(buffer[_bufferedCount..]);
            data = data[free..];
            _stripesInBlock = ConsumeStripes(ref acc, ref buffer[0], BufferStripes, _stripesInBlock);
            _bufferedCount = 0;
        }

        // data is non-empty here. Hash every whole stripe that still has input after it, straight from the caller's span.
        if (data.Length > StripeLength)
        {
            uint stripes = (uint)(data.Length - 1) / StripeLength;
            _stripesInBlock = ConsumeStripes(ref acc, ref MemoryMarshal.GetReference(data), stripes, _stripesInBlock);
            int consumed = (int)stripes * StripeLength;

            // The digest may need the tail of the last consumed stripe to build a full 64-byte final window.
            data.Slice(consumed - StripeLength, StripeLength).CopyTo(buffer[(BufferLength - StripeLength)..]);
            data = data[consumed..];
        }

        data.CopyTo(buffer);
        _bufferedCount = data.Length;
    }

    /// <summary>The hash of everything appended so far; the state is left untouched.</summary>
    public UInt128 GetCurrentHashAsUInt128()
    {
        ReadOnlySpan<byte> buffer = _buffer;
        if (_length <= MidSizeMax)
        {
            // Nothing has been consumed yet: the buffer holds the whole input.
            return HashToUInt128(buffer[.._bufferedCount]);
        }

        // Finish on a copy so more data can still be appended afterwards.
        Accumulators accumulators = _accumulators;
        ref ulong acc = ref accumulators[0];
        ref byte bufferStart = ref MemoryMarshal.GetReference(buffer);
        if (_bufferedCount >= StripeLength)
        {
            uint stripes = (uint)(_bufferedCount - 1) / StripeLength;
            ConsumeStripes(ref acc, ref bufferStart, stripes, _stripesInBlock);
            Accumulate512(ref acc, ref Unsafe.Add(ref bufferStart, _bufferedCount - StripeLength), LastStripeSecretOffset);
        }
        else
        {
            // The last 64 input bytes straddle the previously consumed stripe (kept at the buffer's end) and the buffered bytes.
            Span<byte> lastStripe = stackalloc byte[StripeLength];
            int catchUp = StripeLength - _bufferedCount;
            buffer[(BufferLength - catchUp)..].CopyTo(lastStripe);
            buffer[.._bufferedCount].CopyTo(lastStripe[catchUp..]);
            Accumulate512(ref acc, ref MemoryMarshal.GetReference(lastStripe), LastStripeSecretOffset);
        }

        return MergeLong(ref acc, (ulong)_length);
    }

    public string GetCurrentHashAsHex() => ToHex(GetCurrentHashAsUInt128());

    private static UInt128 HashLength0To16(ref byte source, uint length)
    {
        ref byte secret = ref MemoryMarshal.GetReference(DefaultSecret);
        if (length > 8)
        {
            ulong bitflipLow = Read64(ref secret, 32) ^ Read64(ref secret, 40);
            ulong bitflipHigh = Read64(ref secret, 48) ^ Read64(ref secret, 56);
            ulong inputLow = Read64(ref source, 0);
            ulong inputHigh = Read64(ref source, (nint)length - 8);
            ulong mHigh = Math.BigMul(inputLow ^ inputHigh ^ bitflipLow, Prime64_1, out ulong mLow);
            mLow += (ulong)(length - 1) << 54;
            inputHigh ^= bitflipHigh;
            mHigh += inputHigh + ((ulong)(uint)inputHigh * (Prime32_2 - 1));
            mLow ^= BinaryPrimitives.ReverseEndianness(mHigh);
            ulong hHigh = Math.BigMul(mLow, Prime64_2, out ulong hLow);
            hHigh += mHigh * Prime64_2;
            return new UInt128(Avalanche(hHigh), Avalanche(hLow));
        }

        if (length >= 4)
        {
            ulong inputLow = Read32(ref source, 0);
            ulong inputHigh = Read32(ref source, (nint)length - 4);
            ulong keyed = (inputLow + (inputHigh << 32)) ^ (Read64(ref secret, 16) ^ Read64(ref secret, 24));
            ulong mHigh = Math.BigMul(keyed, Prime64_1 + (length << 2), out ulong mLow);
            mHigh += mLow << 1;
            mLow ^= mHigh >> 3;
            mLow ^= mLow >> 35;
            mLow *= PrimeMx2;
            mLow ^= mLow >> 28;
            return new UInt128(Avalanche(mHigh), mLow);
        }

        if (length != 0)
        {
            uint c1 = source;
            uint c2 = Unsafe.Add(ref source, length >> 1);
            uint c3 = Unsafe.Add(ref source, length - 1);
            uint combinedLow = (c1 << 16) | (c2 << 24) | c3 | (length << 8);
            uint combinedHigh = BitOperations.RotateLeft(BinaryPrimitives.ReverseEndianness(combinedLow), 13);
            ulong bitflipLow = Read32(ref secret, 0) ^ Read32(ref secret, 4);
            ulong bitflipHigh = Read32(ref secret, 8) ^ Read32(ref secret, 12);
            return new UInt128(Xxh64Avalanche(combinedHigh ^ bitflipHigh), Xxh64Avalanche(combinedLow ^ bitflipLow));
        }

        return new UInt128(
            Xxh64Avalanche(Read64(ref secret, 80) ^ Read64(ref secret, 88)),
            Xxh64Avalanche(Read64(ref secret, 64) ^ Read64(ref secret, 72)));
    }

    private static UInt128 HashLength17To128(ref byte source, uint length)
    {
        ulong accLow = length * Prime64_1;
        ulong accHigh = 0;
        if (length > 32)
        {
            if (length > 64)
            {
                if (length > 96)
                {
                    Mix32Bytes(ref accLow, ref accHigh, ref source, 48, length - 64, 96);
                }

                Mix32Bytes(ref accLow, ref accHigh, ref source, 32, length - 48, 64);
            }

            Mix32Bytes(ref accLow, ref accHigh, ref source, 16, length - 32, 32);
        }

        Mix32Bytes(ref accLow, ref accHigh, ref source, 0, length - 16, 0);
        return FinishMidSize(accLow, accHigh, length);
    }

    private static UInt128 HashLength129To240(ref byte source, uint length)
    {
        ulong accLow = length * Prime64_1;
        ulong accHigh = 0;
        for (uint i = 0; i < 4; i++)
        {
            Mix32Bytes(ref accLow, ref accHigh, ref source, 32 * i, (32 * i) + 16, (int)(32 * i));
        }

        accLow = Avalanche(accLow);
        accHigh = Avalanche(accHigh);

        // Later rounds reuse the secret from a 3-byte offset (XXH3_MIDSIZE_STARTOFFSET).
        uint rounds = length / 32;
        for (uint i = 4; i < rounds; i++)
        {
            Mix32Bytes(ref accLow, ref accHigh, ref source, 32 * i, (32 * i) + 16, 3 + (int)(32 * (i - 4)));
        }

        // Final round: secret offset 136 - 17 - 16 (XXH3_SECRET_SIZE_MIN - XXH3_MIDSIZE_LASTOFFSET - 16), inputs swapped.
        Mix32Bytes(ref accLow, ref accHigh, ref source, length - 16, length - 32, 103);
        return FinishMidSize(accLow, accHigh, length);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static UInt128 FinishMidSize(ulong accLow, ulong accHigh, uint length)
    {
        ulong low = accLow + accHigh;
        ulong high = (accLow * Prime64_1) + (accHigh * Prime64_4) + (length * Prime64_2);
        return new UInt128(0UL - Avalanche(high), Avalanche(low));
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Mix32Bytes(ref ulong accLow, ref ulong accHigh, ref byte source, uint offset1, uint offset2, int secretOffset)
    {
        ref byte secret = ref MemoryMarshal.GetReference(DefaultSecret);
        ulong in1Low = Read64(ref source, (nint)offset1);
        ulong in1High = Read64(ref source, (nint)offset1 + 8);
        ulong in2Low = Read64(ref source, (nint)offset2);
        ulong in2High = Read64(ref source, (nint)offset2 + 8);
        accLow += MultiplyFold(in1Low ^ Read64(ref secret, secretOffset), in1High ^ Read64(ref secret, secretOffset + 8));
        accLow ^= in2Low + in2High;
        accHigh += MultiplyFold(in2Low ^ Read64(ref secret, secretOffset + 16), in2High ^ Read64(ref secret, secretOffset + 24));
        accHigh ^= in1Low + in1High;
    }

    private static UInt128 MergeLong(ref ulong acc, ulong length)
    {
        ulong low = MergeAccumulators(ref acc, MergeSecretOffset, length * Prime64_1);
        ulong high = MergeAccumulators(ref acc, SecretLength - StripeLength - MergeSecretOffset, ~(length * Prime64_2));
        return new UInt128(high, low);
    }

    private static ulong MergeAccumulators(ref ulong acc, int secretOffset, ulong start)
    {
        ref byte secret = ref Unsafe.Add(ref MemoryMarshal.GetReference(DefaultSecret), secretOffset);
        ulong result = start;
        for (int i = 0; i < 8; i += 2)
        {
            result += MultiplyFold(Unsafe.Add(ref acc, i) ^ Read64(ref secret, i * 8), Unsafe.Add(ref acc, i + 1) ^ Read64(ref secret, (i * 8) + 8));
        }

        return Avalanche(result);
    }

    private static void InitializeAccumulators(ref ulong acc)
    {
        Unsafe.Add(ref acc, 0) = Prime32_3;
        Unsafe.Add(ref acc, 1) = Prime64_1;
        Unsafe.Add(ref acc, 2) = Prime64_2;
        Unsafe.Add(ref acc, 3) = Prime64_3;
        Unsafe.Add(ref acc, 4) = Prime64_4;
        Unsafe.Add(ref acc, 5) = Prime32_2;
        Unsafe.Add(ref acc, 6) = Prime64_5;
        Unsafe.Add(ref acc, 7) = Prime32_1;
    }

    /// <summary>
    /// Accumulates <paramref name="stripes"/> 64-byte stripes, scrambling whenever a 16-stripe block completes.
    /// Returns the new position within the current block. This is the hot loop for large inputs.
    /// </summary>
    /// <remarks>Fully optimized from the first call: Tier-0 code does not inline the vector helpers and runs several times slower.</remarks>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static int ConsumeStripes(ref ulong acc, ref byte source, uint stripes, int stripesInBlock)
    {
        ref byte secret = ref MemoryMarshal.GetReference(DefaultSecret);
        nuint offset = 0;

        if (Vector256.IsHardwareAccelerated && BitConverter.IsLittleEndian)
        {
            // Keep all eight lanes in two registers for the whole run.
            Vector256<ulong> acc0 = Vector256.LoadUnsafe(ref acc);
            Vector256<ulong> acc1 = Vector256.LoadUnsafe(ref acc, 4);
            while (stripes != 0)
            {
                uint count = Math.Min(stripes, (uint)(StripesPerBlock - stripesInBlock));
                nuint secretOffset = (nuint)(stripesInBlock * SecretConsumeRate);
                for (uint i = 0; i < count; i++)
                {
                    acc0 = Accumulate256(acc0, Vector256.LoadUnsafe(ref source, offset).AsUInt64(), Vector256.LoadUnsafe(ref secret, secretOffset).AsUInt64());
                    acc1 = Accumulate256(acc1, Vector256.LoadUnsafe(ref source, offset + 32).AsUInt64(), Vector256.LoadUnsafe(ref secret, secretOffset + 32).AsUInt64());
                    offset += StripeLength;
                    secretOffset += SecretConsumeRate;
                }

                stripes -= count;
                stripesInBlock += (int)count;
                if (stripesInBlock == StripesPerBlock)
                {
                    acc0 = Scramble256(acc0, Vector256.LoadUnsafe(ref secret, ScrambleSecretOffset).AsUInt64());
                    acc1 = Scramble256(acc1, Vector256.LoadUnsafe(ref secret, ScrambleSecretOffset + 32).AsUInt64());
                    stripesInBlock = 0;
                }
            }

            acc0.StoreUnsafe(ref acc);
            acc1.StoreUnsafe(ref acc, 4);
            return stripesInBlock;
        }

        if (Vector128.IsHardwareAccelerated && BitConverter.IsLittleEndian)
        {
            Vector128<ulong> acc0 = Vector128.LoadUnsafe(ref acc);
            Vector128<ulong> acc1 = Vector128.LoadUnsafe(ref acc, 2);
            Vector128<ulong> acc2 = Vector128.LoadUnsafe(ref acc, 4);
            Vector128<ulong> acc3 = Vector128.LoadUnsafe(ref acc, 6);
            while (stripes != 0)
            {
                uint count = Math.Min(stripes, (uint)(StripesPerBlock - stripesInBlock));
                nuint secretOffset = (nuint)(stripesInBlock * SecretConsumeRate);
                for (uint i = 0; i < count; i++)
                {
                    acc0 = Accumulate128(acc0, Vector128.LoadUnsafe(ref source, offset).AsUInt64(), Vector128.LoadUnsafe(ref secret, secretOffset).AsUInt64());
                    acc1 = Accumulate128(acc1, Vector128.LoadUnsafe(ref source, offset + 16).AsUInt64(), Vector128.LoadUnsafe(ref secret, secretOffset + 16).AsUInt64());
                    acc2 = Accumulate128(acc2, Vector128.LoadUnsafe(ref source, offset + 32).AsUInt64(), Vector128.LoadUnsafe(ref secret, secretOffset + 32).AsUInt64());
                    acc3 = Accumulate128(acc3, Vector128.LoadUnsafe(ref source, offset + 48).AsUInt64(), Vector128.LoadUnsafe(ref secret, secretOffset + 48).AsUInt64());
                    offset += StripeLength;
                    secretOffset += SecretConsumeRate;
                }

                stripes -= count;
                stripesInBlock += (int)count;
                if (stripesInBlock == StripesPerBlock)
                {
                    acc0 = Scramble128(acc0, Vector128.LoadUnsafe(ref secret, ScrambleSecretOffset).AsUInt64());
                    acc1 = Scramble128(acc1, Vector128.LoadUnsafe(ref secret, ScrambleSecretOffset + 16).AsUInt64());
                    acc2 = Scramble128(acc2, Vector128.LoadUnsafe(ref secret, ScrambleSecretOffset + 32).AsUInt64());
                    acc3 = Scramble128(acc3, Vector128.LoadUnsafe(ref secret, ScrambleSecretOffset + 48).AsUInt64());
                    stripesInBlock = 0;
                }
            }

            acc0.StoreUnsafe(ref acc);
            acc1.StoreUnsafe(ref acc, 2);
            acc2.StoreUnsafe(ref acc, 4);
            acc3.StoreUnsafe(ref acc, 6);
            return stripesInBlock;
        }

        while (stripes != 0)
        {
            uint count = Math.Min(stripes, (uint)(StripesPerBlock - stripesInBlock));
            int secretOffset = stripesInBlock * SecretConsumeRate;
            for (uint i = 0; i < count; i++)
            {
                Accumulate512Scalar(ref acc, ref Unsafe.Add(ref source, offset), secretOffset);
                offset += StripeLength;
                secretOffset += SecretConsumeRate;
            }

            stripes -= count;
            stripesInBlock += (int)count;
            if (stripesInBlock == StripesPerBlock)
            {
                for (int i = 0; i < 8; i++)
                {
                    ref ulong lane = ref Unsafe.Add(ref acc, i);
                    lane = (lane ^ (lane >> 47) ^ Read64(ref secret, ScrambleSecretOffset + (i * 8))) * Prime32_1;
                }

                stripesInBlock = 0;
            }
        }

        return stripesInBlock;
    }

    /// <summary>Accumulates one stripe with the secret read from <paramref name="secretOffset"/> (used for the final, unaligned stripe).</summary>
    private static void Accumulate512(ref ulong acc, ref byte source, int secretOffset)
    {
        ref byte secret = ref Unsafe.Add(ref MemoryMarshal.GetReference(DefaultSecret), secretOffset);
        if (Vector256.IsHardwareAccelerated && BitConverter.IsLittleEndian)
        {
            Accumulate256(Vector256.LoadUnsafe(ref acc), Vector256.LoadUnsafe(ref source).AsUInt64(), Vector256.LoadUnsafe(ref secret).AsUInt64()).StoreUnsafe(ref acc);
            Accumulate256(Vector256.LoadUnsafe(ref acc, 4), Vector256.LoadUnsafe(ref source, 32).AsUInt64(), Vector256.LoadUnsafe(ref secret, 32).AsUInt64()).StoreUnsafe(ref acc, 4);
        }
        else if (Vector128.IsHardwareAccelerated && BitConverter.IsLittleEndian)
        {
            for (nuint i = 0; i < 8; i += 2)
            {
                Accumulate128(Vector128.LoadUnsafe(ref acc, i), Vector128.LoadUnsafe(ref source, i * 8).AsUInt64(), Vector128.LoadUnsafe(ref secret, i * 8).AsUInt64()).StoreUnsafe(ref acc, i);
            }
        }
        else
        {
            Accumulate512Scalar(ref acc, ref source, secretOffset);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Accumulate512Scalar(ref ulong acc, ref byte source, int secretOffset)
    {
        ref byte secret = ref MemoryMarshal.GetReference(DefaultSecret);
        for (int i = 0; i < 8; i++)
        {
            ulong value = Read64(ref source, i * 8);
            ulong key = value ^ Read64(ref secret, secretOffset + (i * 8));
            Unsafe.Add(ref acc, i ^ 1) += value; // adjacent lanes swap their raw input
            Unsafe.Add(ref acc, i) += (ulong)(uint)key * (key >> 32);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<ulong> Accumulate256(Vector256<ulong> acc, Vector256<ulong> data, Vector256<ulong> secret)
    {
        Vector256<ulong> key = data ^ secret;
        if (Avx2.IsSupported)
        {
            // vpmuludq multiplies the low 32 bits of each lane: key.lo * key.hi; vpshufd 0x4E swaps the 64-bit halves of each 128-bit lane.
            Vector256<ulong> product = Avx2.Multiply(key.AsUInt32(), Avx2.ShiftRightLogical(key, 32).AsUInt32());
            return acc + product + Avx2.Shuffle(data.AsUInt32(), 0x4E).AsUInt64();
        }

        Vector256<ulong> lowHalf = key & Vector256.Create(0xFFFF_FFFFUL);
        return acc + (lowHalf * (key >> 32)) + Vector256.Shuffle(data, Vector256.Create(1UL, 0, 3, 2));
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<ulong> Accumulate128(Vector128<ulong> acc, Vector128<ulong> data, Vector128<ulong> secret)
    {
        Vector128<ulong> key = data ^ secret;
        if (Sse2.IsSupported)
        {
            Vector128<ulong> product = Sse2.Multiply(key.AsUInt32(), Sse2.ShiftRightLogical(key, 32).AsUInt32());
            return acc + product + Sse2.Shuffle(data.AsUInt32(), 0x4E).AsUInt64();
        }

        Vector128<ulong> lowHalf = key & Vector128.Create(0xFFFF_FFFFUL);
        return acc + (lowHalf * (key >> 32)) + Vector128.Shuffle(data, Vector128.Create(1UL, 0));
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector256<ulong> Scramble256(Vector256<ulong> acc, Vector256<ulong> secret) =>
        (acc ^ (acc >> 47) ^ secret) * Vector256.Create(Prime32_1);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Vector128<ulong> Scramble128(Vector128<ulong> acc, Vector128<ulong> secret) =>
        (acc ^ (acc >> 47) ^ secret) * Vector128.Create(Prime32_1);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong MultiplyFold(ulong left, ulong right)
    {
        ulong high = Math.BigMul(left, right, out ulong low);
        return low ^ high;
    }

    /// <summary>XXH3_avalanche.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Avalanche(ulong hash)
    {
        hash ^= hash >> 37;
        hash *= 0x165667919E3779F9UL;
        return hash ^ (hash >> 32);
    }

    /// <summary>XXH64_avalanche, which the 0–3 byte paths use instead of <see cref="Avalanche"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Xxh64Avalanche(ulong hash)
    {
        hash ^= hash >> 33;
        hash *= Prime64_2;
        hash ^= hash >> 29;
        hash *= Prime64_3;
        return hash ^ (hash >> 32);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Read64(ref byte source, nint offset)
    {
        ulong value = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref source, offset));
        return BitConverter.IsLittleEndian ? value : BinaryPrimitives.ReverseEndianness(value);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static uint Read32(ref byte source, nint offset)
    {
        uint value = Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref source, offset));
        return BitConverter.IsLittleEndian ? value : BinaryPrimitives.ReverseEndianness(value);
    }

    [InlineArray(8)]
    private struct Accumulators
    {
        private ulong _element0;
    }

    [InlineArray(BufferLength)]
    private struct InputBuffer
    {
        private byte _element0;
    }
}
