using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using Freight.Bench.Load.Engine;
using Microsoft.AspNetCore.Server.Kestrel.Core;

namespace Freight.Bench.Tests.Load;

/// <summary>
/// The load engine against a real local Kestrel: counts, status codes, failures and bounds.
/// Behaviour only — the one timing bound (a duration run stops within a second) is the contract.
/// </summary>
public sealed class LoadEngineTests
{
    [Theory]
    [InlineData(1, 100)]
    [InlineData(8, 1000)]
    public async Task ClosedLoop_CountBounded_CompletesExactlyMaxRequests(int connections, int requests)
    {
        await using var server = await LoadTestServer.StartAsync();

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/ok"),
            Connections = connections,
            MaxRequests = requests,
        });

        Assert.Equal(LoadStopReason.MaxRequests, result.StopReason);
        Assert.Equal(requests, result.StatusCodes.Values.Sum());
        Assert.Equal(requests, result.StatusCodes[200]);
        Assert.Equal(requests, result.Responses);
        Assert.Equal(requests, result.Latency.Count);
        Assert.Equal(0, result.SocketErrors + result.Timeouts + result.Errors + result.CancelledAtEnd);
        Assert.Equal(2L * requests, result.BodyBytes);
        Assert.Equal(requests, result.Series.Sum(s => s.Completions));
    }

    [Fact]
    public async Task ClosedLoop_Http2CountBounded_CompletesExactlyMaxRequests()
    {
        await using var server = await LoadTestServer.StartAsync(HttpProtocols.Http2);

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/ok"),
            HttpVersion = HttpVersion.Version20,
            Connections = 16,
            MaxRequests = 500,
        });

        Assert.Equal(500, result.StatusCodes[200]);
        Assert.Equal(0, result.SocketErrors + result.Timeouts + result.Errors);
    }

    [Theory]
    [InlineData(404)]
    [InlineData(500)]
    [InlineData(503)]
    public async Task ClosedLoop_ErrorStatus_TalliedAsResponsesNotErrors(int status)
    {
        await using var server = await LoadTestServer.StartAsync();

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url($"/status/{status}"),
            Connections = 4,
            MaxRequests = 200,
        });

        Assert.Equal(new Dictionary<int, long> { [status] = 200 }, result.StatusCodes);
        Assert.Equal(0, result.SocketErrors + result.Timeouts + result.Errors);
        Assert.Equal(200, result.Latency.Count);
        Assert.Equal(0, result.Series.Sum(second => second.Failures));
    }

    [Fact]
    public async Task ClosedLoop_UnexpectedStatus_IsACompletionAndAFailureInItsSecond()
    {
        await using var server = await LoadTestServer.StartAsync();

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/status/503"),
            Connections = 4,
            MaxRequests = 200,
            ExpectedStatusCode = 200,
        });

        Assert.Equal(200, result.BadResponses);
        Assert.Equal(200, result.Series.Sum(second => second.Completions));
        Assert.Equal(200, result.Series.Sum(second => second.Failures));
    }

    [Fact]
    public async Task OpenLoop_CountBounded_SchedulesExactlyMaxRequests()
    {
        await using var server = await LoadTestServer.StartAsync();

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/ok"),
            RatePerSecond = 500,
            Connections = 8,
            MaxRequests = 300,
        });

        Assert.Equal(LoadMode.OpenLoop, result.Mode);
        Assert.Equal(300, result.StatusCodes[200] + result.Dropped);
        Assert.Equal(0, result.Dropped);
    }

    [Fact]
    public async Task OpenLoop_InFlightCapReached_ExcessCountedAsDropped()
    {
        await using var server = await LoadTestServer.StartAsync();

        // The first request stalls 2 s on the only connection; with at most 5 in flight the rest of
        // the 1.5 s of schedule cannot be sent and must show up as dropped, not vanish.
        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/stall"),
            RatePerSecond = 100,
            MaxInFlight = 5,
            Duration = TimeSpan.FromSeconds(1.5),
        });

        Assert.True(result.Dropped > 0, $"dropped {result.Dropped}");
        Assert.Equal(5, result.CancelledAtEnd);
        Assert.Equal(0, result.Responses);
        Assert.Equal(result.Dropped, result.Series.Sum(s => s.Dropped));
    }

    [Fact]
    public async Task ClosedLoop_ConnectionRefused_EveryAttemptIsASocketError()
    {
        var target = new Uri($"http://127.0.0.1:{UnusedPort()}/ok");

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = target,
            Connections = 4,
            MaxRequests = 50,
            Duration = TimeSpan.FromSeconds(10),
        });

        Assert.Equal(LoadStopReason.MaxRequests, result.StopReason);
        Assert.Equal(50, result.SocketErrors);
        Assert.Empty(result.StatusCodes);
        Assert.Equal(0, result.Errors + result.Timeouts);
        Assert.Equal("connection_refused", result.FirstFailure?.Code);
    }

    [Fact]
    public async Task ClosedLoop_ConnectionRefusedForADuration_Ends()
    {
        var target = new Uri($"http://127.0.0.1:{UnusedPort()}/ok");

        var result = await LoadEngine.RunAsync(new LoadOptions { Target = target, Duration = TimeSpan.FromSeconds(1) });

        Assert.Equal(LoadStopReason.Duration, result.StopReason);
        Assert.True(result.SocketErrors > 0);
        Assert.Equal(0, result.Responses + result.Errors);
    }

    [Fact]
    public async Task ClosedLoop_DurationTwoSeconds_EndsWithinASecondOfIt()
    {
        await using var server = await LoadTestServer.StartAsync();
        var seconds = new List<LoadSecond>();

        var clock = Stopwatch.StartNew();
        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/ok"),
            Connections = 4,
            Duration = TimeSpan.FromSeconds(2),
            OnSecond = second => { lock (seconds) { seconds.Add(second); } },
        });
        clock.Stop();

        Assert.Equal(LoadStopReason.Duration, result.StopReason);
        // The duration timer may fire a tick early; the bound that matters is the upper one.
        Assert.InRange(clock.Elapsed, TimeSpan.FromSeconds(1.9), TimeSpan.FromSeconds(3));
        Assert.True(result.Responses > 0);
        Assert.Equal(0, result.Errors + result.SocketErrors + result.Timeouts);
        Assert.InRange(result.CancelledAtEnd, 0, 4);

        // One entry per second (0 and 1, and possibly a partial third), each reported through the callback too.
        Assert.Equal([0, 1], result.Series.Take(2).Select(s => s.Second));
        Assert.Equal(result.Series, seconds);
        Assert.Equal(result.Responses, result.Series.Sum(s => s.Completions));
    }

    [Fact]
    public async Task OpenLoop_DurationBounded_EndsWithinASecondOfIt()
    {
        await using var server = await LoadTestServer.StartAsync();

        var clock = Stopwatch.StartNew();
        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/ok"),
            RatePerSecond = 200,
            Connections = 4,
            Duration = TimeSpan.FromSeconds(2),
        });
        clock.Stop();

        Assert.InRange(clock.Elapsed, TimeSpan.FromSeconds(1.9), TimeSpan.FromSeconds(3));
        Assert.True(result.Responses > 0);
        Assert.Equal(0, result.Errors + result.SocketErrors + result.Timeouts + result.Dropped);
    }

    [Fact]
    public async Task ClosedLoop_RampOneToFour_AddsWorkersUpToTheTarget()
    {
        await using var server = await LoadTestServer.StartAsync();
        var workersSeen = 0;

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/ok"),
            RampFrom = 1,
            RampTo = 4,
            RampSeconds = 1,

            // Gauges are sampled at each second's end; the end of second 1 (t = 2 s) is after the ramp.
            Duration = TimeSpan.FromSeconds(2.5),
            OnSecond = second => workersSeen = Math.Max(workersSeen, second.Workers),
        });

        Assert.Equal(4, workersSeen);
        Assert.True(result.Responses > 0);
        Assert.Equal(0, result.Errors + result.SocketErrors + result.Timeouts);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Duration_RequestStillInFlight_CancelledUnlessDrained(bool drain)
    {
        await using var server = await LoadTestServer.StartAsync();

        // The only request stalls 2 s, well past the 0.3 s duration.
        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/stall"),
            Duration = TimeSpan.FromMilliseconds(300),
            Drain = drain ? TimeSpan.FromSeconds(20) : null,
        });

        Assert.Equal(LoadStopReason.Duration, result.StopReason);
        if (drain)
        {
            Assert.Equal(1, result.Responses);
            Assert.Equal(0, result.CancelledAtEnd);
            Assert.True(result.Latency.MaxSeconds >= 1.9, $"max {result.Latency.MaxSeconds}");
        }
        else
        {
            Assert.Equal(0, result.Responses);
            Assert.Equal(1, result.CancelledAtEnd);
        }
    }

    [Fact]
    public async Task RequestTimeout_ServerStallsLongerThanTimeout_CountedAsTimeout()
    {
        await using var server = await LoadTestServer.StartAsync();

        var result = await LoadEngine.RunAsync(new LoadOptions
        {
            Target = server.Url("/stall"),
            MaxRequests = 3,
            RequestTimeout = TimeSpan.FromMilliseconds(300),
        });

        Assert.Equal(1, result.Timeouts);
        Assert.Equal(2, result.StatusCodes[200]);
        Assert.Equal(0, result.Errors + result.SocketErrors + result.CancelledAtEnd);
    }

    [Fact]
    public async Task RunAsync_CallerCancels_ReturnsPartialResultWithInFlightCancelled()
    {
        await using var server = await LoadTestServer.StartAsync();
        using var cancel = new CancellationTokenSource(TimeSpan.FromMilliseconds(500));

        var result = await LoadEngine.RunAsync(
            new LoadOptions { Target = server.Url("/stall"), Duration = TimeSpan.FromSeconds(30) },
            cancel.Token);

        Assert.Equal(LoadStopReason.Cancelled, result.StopReason);
        Assert.Equal(1, result.CancelledAtEnd);
        Assert.Equal(0, result.Responses + result.Errors + result.Timeouts);
    }

    [Fact]
    public void Validate_NoBound_Throws()
    {
        var options = new LoadOptions { Target = new Uri("http://127.0.0.1:1/") };

        Assert.Throws<ArgumentException>(options.Validate);
    }

    private static int UnusedPort()
    {
        // Bind to port 0, note the port the OS chose, close: nothing listens there for a while.
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        socket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        return ((IPEndPoint)socket.LocalEndPoint!).Port;
    }
}
