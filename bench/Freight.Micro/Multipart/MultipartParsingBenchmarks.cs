using System.Text;
using BenchmarkDotNet.Attributes;
using Freight.Multipart;

namespace Freight.Micro.Multipart;

/// <summary>
/// Freight's multipart parser against ASP.NET Core's on the same 20 MiB bodies, normal and hostile; every section
/// read to its end. Each body is verified with both parsers before it is timed: a case whose parser finds other
/// sections or other bytes fails and has no figure.
/// </summary>
/// <remarks>Not sealed: BenchmarkDotNet derives from benchmark classes.</remarks>
public class MultipartParsingBenchmarks
{
    private readonly byte[] _readBuffer = new byte[MultipartDrain.BufferBytes];
    private readonly MultipartLimits _limits = new() { MaxSections = MultipartBodyInput.MaxSections };
    private MultipartBody _body = null!;
    private SegmentedBodyReader _pipe = null!;
    private MemoryStream _stream = null!;
    private byte[] _delimiter = null!;

    [ParamsSource(nameof(Bodies))]
    public MultipartBodyInput Input { get; set; } = null!;

    public static IEnumerable<MultipartBodyInput> Bodies => MultipartBodyInput.All;

    [GlobalSetup]
    public async Task SetupAsync()
    {
        _body = Input.Build();
        _pipe = new SegmentedBodyReader(_body.Bytes);
        _stream = new MemoryStream(_body.Bytes, writable: false);
        _delimiter = Encoding.ASCII.GetBytes("\r\n--" + _body.Boundary);

        var freight = new SectionRecorder();
        await MultipartDrain.FreightAsync(_pipe.Reset(), _body.Boundary, _limits, freight);
        _body.Verify(freight, "Freight");
        var aspNetCore = new SectionRecorder();
        _stream.Position = 0;
        await MultipartDrain.AspNetCoreAsync(_stream, _body.Boundary, _readBuffer, aspNetCore);
        _body.Verify(aspNetCore, "ASP.NET Core");
    }

    [Benchmark(Description = "multipart-freight")]
    public Task<long> Freight() => MultipartDrain.FreightAsync(_pipe.Reset(), _body.Boundary, _limits);

    /// <summary>
    /// The floor for both: .NET's vectorized <c>IndexOf(span)</c> for the delimiter over the whole body in one span,
    /// from each match to the next, with no pipe, no headers and no chunks.
    /// </summary>
    [Benchmark(Description = "delimiter-indexof")]
    public int DelimiterIndexOf()
    {
        var delimiter = _delimiter.AsSpan();
        var rest = _body.Bytes.AsSpan();
        var found = 0;
        int index;
        while ((index = rest.IndexOf(delimiter)) >= 0)
        {
            found++;
            rest = rest[(index + delimiter.Length)..];
        }

        return found;
    }

    [Benchmark(Description = "multipart-aspnetcore")]
    public Task<long> AspNetCore()
    {
        _stream.Position = 0;
        return MultipartDrain.AspNetCoreAsync(_stream, _body.Boundary, _readBuffer);
    }
}
