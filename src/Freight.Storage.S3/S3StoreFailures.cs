using Freight.Storage;

namespace Freight.Storage.S3;

/// <summary>The S3 store's backend failures: the server refused or failed (502), or could not be reached (502).</summary>
public sealed class S3StoreFailures : IStoreFailureClassifier
{
    /// <inheritdoc />
    public StoreFailure Classify(Exception exception) => exception switch
    {
        // The S3 server refused or failed (its status and message in the detail): not the client's fault.
        S3TransferException or Amazon.Runtime.AmazonServiceException => StoreFailure.Failed,
        // ...or could not be reached (the store's only outgoing HTTP is the S3 client's).
        HttpRequestException or Amazon.Runtime.AmazonClientException => StoreFailure.Unreachable,
        _ => StoreFailure.None,
    };
}
