namespace Freight.Bench.Tests.Progress;

/// <summary>
/// What a terminal shows after some output: a small interpreter of the sequences the live display uses (line
/// feed as a terminal with onlcr treats it, carriage return, CSI 2K erase line, CSI 1A cursor up, CSI ?25l/h
/// hide/show cursor). Any other escape sequence fails the test: the display must use no other.
/// </summary>
internal sealed class TerminalScreen
{
    private readonly List<string> _lines = [""];
    private int _row;
    private int _column;

    public bool CursorVisible { get; private set; } = true;

    /// <summary>The screen's lines, trailing empty ones dropped.</summary>
    public IReadOnlyList<string> Lines => _lines.Select(l => l.TrimEnd()).Reverse().SkipWhile(l => l.Length == 0).Reverse().ToList();

    public static TerminalScreen Of(string output)
    {
        var screen = new TerminalScreen();
        screen.Write(output);
        return screen;
    }

    public void Write(string output)
    {
        for (var i = 0; i < output.Length; i++)
        {
            var c = output[i];
            switch (c)
            {
                case '\n':
                    _row++;
                    _column = 0;
                    while (_lines.Count <= _row)
                    {
                        _lines.Add("");
                    }

                    break;
                case '\r':
                    _column = 0;
                    break;
                case '\u001b':
                    var end = output.IndexOfAny(['A', 'K', 'l', 'h'], i);
                    var sequence = output[i..(end + 1)];
                    switch (sequence)
                    {
                        case "\u001b[2K":
                            _lines[_row] = "";
                            break;
                        case "\u001b[1A":
                            _row = Math.Max(0, _row - 1);
                            break;
                        case "\u001b[?25l":
                            CursorVisible = false;
                            break;
                        case "\u001b[?25h":
                            CursorVisible = true;
                            break;
                        default:
                            Assert.Fail($"unexpected escape sequence {sequence.Replace("\u001b", "ESC", StringComparison.Ordinal)}");
                            break;
                    }

                    i = end;
                    break;
                default:
                    Assert.True(c >= ' ', $"unexpected control character U+{(int)c:X4}");
                    var line = _lines[_row].PadRight(_column);
                    _lines[_row] = line[.._column] + c + (line.Length > _column + 1 ? line[(_column + 1)..] : "");
                    _column++;
                    break;
            }
        }
    }
}
