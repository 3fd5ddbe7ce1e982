using System.Net;
using Freight.Resumable;
using Freight.Server.Tests.Infrastructure;
using Freight.Storage;
using Microsoft.Extensions.DependencyInjection;
using static Freight.Server.Tests.Files.FilesApi;
using static Freight.Server.Tests.Tus.TusApi;

namespace Freight.Server.Tests.Tus;

/// <summary>
/// A request for an upload whose holder is finishing it (its last byte in, the file being made), which it cannot stop
/// half-way: the request waits for the finish, past the 5 s a holder that can let go is given, and answers from the
/// finished upload. The finish is held at its commit by the test (<see cref="FinishGate"/>), and the server's clock
/// stands still, so the wait ends only when the finish does. Before, the request gave up after 5 s and answered
/// <c>423 Upload busy</c> while the upload was about to be complete.
/// </summary>
public sealed class TusFinishingTakeOverTests(TusFinishingTakeOverTests.GatedTusServer server) : IClassFixture<TusFinishingTakeOverTests.GatedTusServer>
{
    /// <summary>Longer than the patience a holder that can let go is given (5 s), on the test's own clock.</summary>
    private static readonly TimeSpan s_pastThePatience = TimeSpan.FromSeconds(6);

    [Fact]
    public async Task Head_WhileThePatchIsFinishingTheUpload_WaitsForItAndShowsTheFinishedUpload()
    {
        var key = NewFileName();
        var content = Content(1000, seed: 141);
        var path = await CreateAsync(server, content.Length, key);

        using var gate = server.Gate.Arm();
        var patching = PatchAsync(server, path, 0, content);
        await gate.Entered.WaitAsync(TimeSpan.FromMinutes(1));
        var heading = HeadAsync(server, path);

        if (await Task.WhenAny(heading, Task.Delay(s_pastThePatience)) == heading)
        {
            using var early = await heading;
            Assert.Fail($"HEAD answered {(int)early.StatusCode} while the upload was still finishing: {await early.Content.ReadAsStringAsync()}");
        }

        gate.Open();

        using var head = await heading;
        Assert.Equal(HttpStatusCode.OK, head.StatusCode);
        Assert.Equal("1000", Header(head, "Upload-Offset"));
        Assert.Equal("/files/" + key, head.Content.Headers.ContentLocation?.OriginalString);
        using var patched = await patching;
        Assert.Equal(HttpStatusCode.NoContent, patched.StatusCode);
        Assert.Equal("1000", Header(patched, "Upload-Offset"));
        await AssertFileAsync(server, key, content);
    }

    /// <summary>
    /// The default file-system stores, the resumable one held at its commit while <see cref="Gate"/> is armed, and a
    /// clock that stands still: the only end of a takeover's wait is the release it waits for.
    /// </summary>
    public sealed class GatedTusServer() : TusServer
    {
        public FinishGate Gate { get; } = new();

        protected override Action<IServiceCollection>? ReplaceServices => services =>
        {
            var store = services.Last(service => service.ServiceType == typeof(IResumableUploadStore));
            var inner = store.ImplementationFactory ?? throw new InvalidOperationException("The resumable store is expected to be registered by a factory.");
            services.Add(ServiceDescriptor.Singleton<IResumableUploadStore>(provider => new GatedStore((IResumableUploadStore)inner(provider), Gate)));
            services.Add(ServiceDescriptor.Singleton<TimeProvider>(new StoppedClock()));
        };
    }

    /// <summary>Holds a finish at its commit, once armed, until the test opens it.</summary>
    public sealed class FinishGate
    {
        private Armed? _armed;

        public Armed Arm() => _armed = new Armed(this);

        internal Task PassAsync(CancellationToken cancellationToken)
        {
            if (_armed is not { } armed)
            {
                return Task.CompletedTask;
            }

            armed.Reached();
            return armed.Opened.WaitAsync(cancellationToken);
        }

        public sealed class Armed(FinishGate gate) : IDisposable
        {
            private readonly TaskCompletionSource _entered = new(TaskCreationOptions.RunContinuationsAsynchronously);
            private readonly TaskCompletionSource _opened = new(TaskCreationOptions.RunContinuationsAsynchronously);

            /// <summary>A finish reached the commit and waits there.</summary>
            public Task Entered => _entered.Task;

            internal Task Opened => _opened.Task;

            internal void Reached() => _entered.TrySetResult();

            public void Open() => _opened.TrySetResult();

            /// <summary>Opens the gate and disarms it: a failed test leaves no finish held.</summary>
            public void Dispose()
            {
                Open();
                gate._armed = null;
            }
        }
    }

    /// <summary>A clock whose timestamps stand still and whose timers never fire (the wall clock still runs).</summary>
    private sealed class StoppedClock : TimeProvider
    {
        public override long GetTimestamp() => 0;

        public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period) => new NeverTimer();

        private sealed class NeverTimer : ITimer
        {
            public bool Change(TimeSpan dueTime, TimeSpan period) => true;

            public void Dispose()
            {
            }

            public ValueTask DisposeAsync() => ValueTask.CompletedTask;
        }
    }

    /// <summary>The store, with its commit (<see cref="IResumableUploadStore.CompleteAsync"/>) held at the gate.</summary>
    private sealed class GatedStore(IResumableUploadStore inner, FinishGate gate) : IResumableUploadStore
    {
        public ValueTask CreateAsync(ResumableUpload upload, CancellationToken cancellationToken = default) => inner.CreateAsync(upload, cancellationToken);

        public ValueTask<ResumableUpload?> GetAsync(string id, CancellationToken cancellationToken = default) => inner.GetAsync(id, cancellationToken);

        public ValueTask UpdateAsync(ResumableUpload upload, CancellationToken cancellationToken = default) => inner.UpdateAsync(upload, cancellationToken);

        public ValueTask<IResumableUploadAppender> BeginAppendAsync(string id, long offset, CancellationToken cancellationToken = default) => inner.BeginAppendAsync(id, offset, cancellationToken);

        public ValueTask<int> ReadAsync(string id, long offset, Memory<byte> destination, CancellationToken cancellationToken = default) => inner.ReadAsync(id, offset, destination, cancellationToken);

        public async ValueTask<ObjectInfo> CompleteAsync(ResumableUpload upload, string key, ObjectCommit commit, CancellationToken cancellationToken = default)
        {
            await gate.PassAsync(cancellationToken);
            return await inner.CompleteAsync(upload, key, commit, cancellationToken);
        }

        public ValueTask<bool> DeleteAsync(string id, CancellationToken cancellationToken = default) => inner.DeleteAsync(id, cancellationToken);

        public IAsyncEnumerable<ResumableUpload> ListAsync(CancellationToken cancellationToken = default) => inner.ListAsync(cancellationToken);

        public long? AvailableBytes() => inner.AvailableBytes();
    }
}
