using Freight.AspNetCore.Files;
using Freight.Multipart;
using Freight.Storage;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;

namespace Freight.AspNetCore.Uploads;

/// <summary>One section of a <see cref="FreightMultipart"/> body: its headers, and its body read straight from the request.</summary>
public sealed class FreightMultipartSection
{
    private readonly HttpContext _context;
    private readonly MultipartPipeReader _reader;
    private readonly MultipartSection _section;
    private MultipartSectionStream? _body;
    private bool _ended;

    internal FreightMultipartSection(HttpContext context, MultipartPipeReader reader, MultipartSection section)
    {
        _context = context;
        _reader = reader;
        _section = section;
    }

    /// <summary>The form field's name (Content-Disposition's name).</summary>
    public string? Name => _section.Name;

    /// <summary>The file name the client sent (filename*, else filename), or null for a plain field. Untrusted: pass it through <c>Path.GetFileName</c> and Freight's key rules before use.</summary>
    public string? FileName => _section.FileName;

    /// <summary>The section's Content-Type, if it has one.</summary>
    public string? ContentType => _section.ContentType;

    /// <summary>Every header of the section, as sent.</summary>
    public IReadOnlyList<KeyValuePair<string, string>> Headers => _section.Headers;

    /// <summary>The section's body as a read-only stream that ends at the section's delimiter; nothing is buffered beyond what the request pipe holds.</summary>
    public Stream Body
    {
        get
        {
            ThrowIfEnded();
            return _body ??= new MultipartSectionStream(_reader);
        }
    }

    /// <summary>The body as UTF-8 text (RFC 7578 §5.1.2), refused (400) past <paramref name="maxBytes"/>.</summary>
    public ValueTask<string> ReadAsStringAsync(int maxBytes = 64 * 1024, CancellationToken cancellationToken = default)
    {
        ThrowIfUnread();
        return _reader.ReadSectionAsStringAsync(maxBytes, Token(cancellationToken));
    }

    /// <summary>
    /// Streams the body into <paramref name="store"/> under <paramref name="key"/> on Freight's upload path: hashed as
    /// it arrives (XXH3-128 for the ETag, and SHA-256), the files API's size limit, one atomic commit — a body cut
    /// off or refused leaves nothing. Call it before reading <see cref="Body"/>.
    /// </summary>
    public async Task<ObjectInfo> StoreAsync(IObjectStore store, string key, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(store);
        ThrowIfUnread();
        var storageKey = FilesRequest.ParseKey(key);
        return await FileUpload.StoreSectionAsync(_context, _reader, store, storageKey, ContentType, _context.RequestServices.GetRequiredService<UploadSettings>().MaxFileBytes, Token(cancellationToken));
    }

    internal void End()
    {
        _ended = true;
        _body?.End();
    }

    private CancellationToken Token(CancellationToken cancellationToken) => cancellationToken.CanBeCanceled ? cancellationToken : _context.RequestAborted;

    private void ThrowIfEnded() => ObjectDisposedException.ThrowIf(_ended, this);

    private void ThrowIfUnread()
    {
        ThrowIfEnded();
        if (_body is not null)
        {
            throw new InvalidOperationException("The section's body is already being read through Body.");
        }
    }
}
