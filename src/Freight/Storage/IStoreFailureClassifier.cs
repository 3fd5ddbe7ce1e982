namespace Freight.Storage;

/// <summary>
/// Recognises the exceptions a store's backend throws (e.g. the S3 client's), so the HTTP layer answers
/// 502 instead of 500 without knowing the backend's SDK. Stores that talk to nothing remote need none.
/// </summary>
public interface IStoreFailureClassifier
{
    /// <summary>What <paramref name="exception"/> says about the backend; <see cref="StoreFailure.None"/> when it is not the backend's.</summary>
    StoreFailure Classify(Exception exception);
}
