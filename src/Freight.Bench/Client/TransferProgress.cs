using System.Globalization;

namespace Freight.Bench.Client;

/// <summary>
/// The progress line of put and get: bytes done and total, the rate over the last second, and the time
/// left. On a terminal it redraws one line in place with <c>\r</c>; otherwise it writes nothing at all, so
/// redirected output holds only the command's final line and never a control character.
/// </summary>
/// <remarks>One instance per phase (hashing, sending, receiving), reported from one loop at a time: not thread-safe.</remarks>
public sealed class TransferProgress
{
    // At most 10 redraws a second: smooth to read, and one short write per 100 ms costs nothing next to the copy.
    private static readonly TimeSpan RedrawInterval = TimeSpan.FromMilliseconds(100);

    // The rate shown is over about the last second: a stall shows within a second, a burst does not make the ETA jump.
    private static readonly TimeSpan RateWindow = TimeSpan.FromSeconds(1);

    // ~11 samples fit in the window at 10 redraws a second; the rest is headroom.
    private const int SampleCapacity = 32;

    private readonly TextWriter _writer;
    private readonly TimeProvider _time;
    private readonly string _label;
    private readonly long? _total;
    private readonly long[] _sampleTimes = new long[SampleCapacity];
    private readonly long[] _sampleBytes = new long[SampleCapacity];
    private int _firstSample;
    private int _sampleCount;
    private long _lastDraw;
    private int _drawnLength;

    /// <param name="writer">Where the line goes: standard error, so standard output keeps only results.</param>
    /// <param name="interactive">True when <paramref name="writer"/> is a terminal and progress was not turned off.</param>
    /// <param name="label">What is happening: "hashing", "put", "get".</param>
    /// <param name="total">The bytes expected, when known.</param>
    /// <param name="initialBytes">Bytes already done before this phase, such as the part of a file a resume keeps.</param>
    /// <param name="time">The clock; the system's by default.</param>
    public TransferProgress(TextWriter writer, bool interactive, string label, long? total, long initialBytes = 0, TimeProvider? time = null)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentNullException.ThrowIfNull(label);
        _writer = writer;
        Interactive = interactive;
        _label = label;
        _total = total;
        _time = time ?? TimeProvider.System;
        BytesDone = initialBytes;
        _lastDraw = _time.GetTimestamp();
        AddSample(_lastDraw, initialBytes);
    }

    /// <summary>Whether the line is drawn at all.</summary>
    public bool Interactive { get; }

    /// <summary>Bytes done so far.</summary>
    public long BytesDone { get; private set; }

    /// <summary>Records that <paramref name="bytes"/> more are done; redraws when the last redraw is 100 ms old.</summary>
    public void Advance(int bytes) => Report(BytesDone + bytes);

    /// <summary>Records the bytes done so far; redraws when the last redraw is 100 ms old.</summary>
    public void Report(long bytesDone)
    {
        BytesDone = bytesDone;
        if (!Interactive)
        {
            return;
        }

        // The first line waits one interval too, so a transfer that ends at once draws nothing.
        var now = _time.GetTimestamp();
        if (_time.GetElapsedTime(_lastDraw, now) < RedrawInterval)
        {
            return;
        }

        _lastDraw = now;
        AddSample(now, bytesDone);
        Draw(Format(bytesDone, RecentRate(now, bytesDone)));
    }

    /// <summary>Erases the line, if one was drawn, so the next output starts on a clean line.</summary>
    public void Clear()
    {
        if (_drawnLength == 0)
        {
            return;
        }

        _writer.Write('\r');
        _writer.Write(new string(' ', _drawnLength));
        _writer.Write('\r');
        _writer.Flush();
        _drawnLength = 0;
    }

    /// <summary>The line for <paramref name="bytesDone"/> at <paramref name="bytesPerSecond"/> (null: not known yet).</summary>
    internal string Format(long bytesDone, double? bytesPerSecond)
    {
        var rate = bytesPerSecond is { } r ? TransferUnits.Rate(r) : "-- MiB/s";
        if (_total is not { } total)
        {
            return string.Create(CultureInfo.InvariantCulture, $"{_label} {TransferUnits.Bytes(bytesDone)}  {rate}");
        }

        var percent = total > 0 ? Math.Min(100, bytesDone * 100 / total) : 100;
        double? eta = bytesPerSecond is > 0 ? (total - bytesDone) / bytesPerSecond.Value : null;
        return string.Create(
            CultureInfo.InvariantCulture,
            $"{_label} {TransferUnits.Bytes(bytesDone)} / {TransferUnits.Bytes(total)} {percent,3}%  {rate}  ETA {TransferUnits.Eta(eta)}");
    }

    private void Draw(string line)
    {
        _writer.Write('\r');
        _writer.Write(line);
        if (line.Length < _drawnLength)
        {
            // Blank what is left of a longer previous line.
            _writer.Write(new string(' ', _drawnLength - line.Length));
        }

        _writer.Flush();
        _drawnLength = Math.Max(line.Length, _drawnLength);
    }

    private double? RecentRate(long now, long bytesDone)
    {
        // Keep the newest sample at least a window old (or the oldest there is) as the start of the window.
        while (_sampleCount > 1 && _time.GetElapsedTime(_sampleTimes[(_firstSample + 1) % SampleCapacity], now) >= RateWindow)
        {
            _firstSample = (_firstSample + 1) % SampleCapacity;
            _sampleCount--;
        }

        var seconds = _time.GetElapsedTime(_sampleTimes[_firstSample], now).TotalSeconds;
        return seconds > 0 ? (bytesDone - _sampleBytes[_firstSample]) / seconds : null;
    }

    private void AddSample(long timestamp, long bytes)
    {
        if (_sampleCount == SampleCapacity)
        {
            _firstSample = (_firstSample + 1) % SampleCapacity;
            _sampleCount--;
        }

        var index = (_firstSample + _sampleCount) % SampleCapacity;
        _sampleTimes[index] = timestamp;
        _sampleBytes[index] = bytes;
        _sampleCount++;
    }
}
