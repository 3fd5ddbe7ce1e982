namespace Freight.Server.Tests.Hostile.Soak;

/// <summary>One reading of the server process: resident memory, open file descriptors, threads.</summary>
internal readonly record struct ProcessSample(double Seconds, long RssBytes, int Handles, int Threads, long Requests, long BytesSent, long BytesReceived);
