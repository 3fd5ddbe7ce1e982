using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace Freight.Server.Tests.Infrastructure;

/// <summary>One log entry a server wrote: its category, level and formatted message.</summary>
public sealed record CapturedLog(string Category, LogLevel Level, string Message)
{
    public override string ToString() => $"{Level} {Category}: {Message}";
}

/// <summary>
/// Every entry the server logs, kept in order beside its usual console output: tests count what one request
/// logged (a refusal is logged once, and Kestrel logs nothing more about it).
/// </summary>
public sealed class CapturedLogs : ILoggerProvider
{
    private readonly ConcurrentQueue<CapturedLog> _entries = new();

    /// <summary>How many entries were logged so far: a mark to read <see cref="Since"/> from.</summary>
    public int Count => _entries.Count;

    /// <summary>The entries logged after <paramref name="mark"/> at <paramref name="minimum"/> or above.</summary>
    public IReadOnlyList<CapturedLog> Since(int mark, LogLevel minimum = LogLevel.Information) =>
        _entries.Skip(mark).Where(entry => entry.Level >= minimum).ToList();

    public ILogger CreateLogger(string categoryName) => new Logger(this, categoryName);

    public void Dispose()
    {
    }

    private sealed class Logger(CapturedLogs logs, string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => logLevel != LogLevel.None;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
            logs._entries.Enqueue(new CapturedLog(category, logLevel, formatter(state, exception) + (exception is null ? "" : " " + exception.GetType().Name + ": " + exception.Message)));
    }
}
