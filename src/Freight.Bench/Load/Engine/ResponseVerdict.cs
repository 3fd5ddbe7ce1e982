namespace Freight.Bench.Load.Engine;

/// <summary>How a complete response compares with what the run expected (<see cref="ResponseExpectation"/>).</summary>
internal enum ResponseVerdict
{
    Good,

    /// <summary>Its status is not <see cref="LoadOptions.ExpectedStatusCode"/>; its body was not compared.</summary>
    UnexpectedStatus,

    /// <summary>Its body differs from <see cref="LoadOptions.ExpectedBody"/> in a byte or in length.</summary>
    BodyMismatch,

    /// <summary>Its body's length differs from its Content-Length (a body that ran past it; a short one is a <see cref="RequestFailure.Length"/>).</summary>
    LengthMismatch,
}
