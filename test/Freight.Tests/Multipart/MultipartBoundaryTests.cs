using Freight.Multipart;

namespace Freight.Tests.Multipart;

public class MultipartBoundaryTests
{
    [Theory]
    [InlineData("multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW", "----WebKitFormBoundary7MA4YWxkTrZu0gW")]
    [InlineData("multipart/form-data; boundary=\"----WebKitFormBoundary7MA4YWxkTrZu0gW\"", "----WebKitFormBoundary7MA4YWxkTrZu0gW")]
    [InlineData("Multipart/Form-Data; charset=utf-8; BOUNDARY=abc", "abc")]
    [InlineData("multipart/form-data;boundary=x", "x")]
    [InlineData("multipart/mixed; boundary=simple", "simple")]
    [InlineData("multipart/form-data; boundary=\"a'()+_,-./:=? z\"", "a'()+_,-./:=? z")]
    [InlineData("multipart/form-data; boundary=\"gc0p4Jq0M2Yt08jU534c0p\"", "gc0p4Jq0M2Yt08jU534c0p")]
    public void TryParse_ValidContentType_ReturnsUnquotedBoundary(string contentType, string expected)
    {
        Assert.True(MultipartBoundary.TryParse(contentType, out var boundary));
        Assert.Equal(expected, boundary);
    }

    [Fact]
    public void TryParse_SeventyCharacterBoundary_Accepted()
    {
        var seventy = new string('b', 70);
        Assert.True(MultipartBoundary.TryParse("multipart/form-data; boundary=" + seventy, out var boundary));
        Assert.Equal(seventy, boundary);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("multipart/form-data")]
    [InlineData("multipart/form-data; charset=utf-8")]
    [InlineData("multipart/form-data; boundary=")]
    [InlineData("multipart/form-data; boundary=\"\"")]
    [InlineData("application/json; boundary=abc")]
    [InlineData("application/x-www-form-urlencoded")]
    [InlineData("multipart/; boundary=abc")]
    [InlineData("multipart/form-data; boundary=\"ends with space \"")]
    [InlineData("multipart/form-data; boundary=\"has@at\"")]
    [InlineData("multipart/form-data; boundary=\"quote\\\"inside\"")]
    [InlineData("multipart/form-data; boundary=abc; boundary=def")]
    [InlineData("not a media type")]
    public void TryParse_InvalidOrMissingBoundary_ReturnsFalse(string? contentType)
    {
        Assert.False(MultipartBoundary.TryParse(contentType, out var boundary));
        Assert.Equal(string.Empty, boundary);
    }

    [Fact]
    public void TryParse_SeventyOneCharacterBoundary_ReturnsFalse()
    {
        Assert.False(MultipartBoundary.TryParse("multipart/form-data; boundary=" + new string('b', 71), out _));
    }

    [Fact]
    public void TryParse_NonAsciiBoundary_ReturnsFalse()
    {
        Assert.False(MultipartBoundary.TryParse("multipart/form-data; boundary=\"caf\u00e9\"", out _));
    }

    [Fact]
    public void Constructor_InvalidBoundary_ThrowsArgumentException()
    {
        var pipe = new System.IO.Pipelines.Pipe();
        Assert.Throws<ArgumentException>(() => new MultipartPipeReader(pipe.Reader, ""));
        Assert.Throws<ArgumentException>(() => new MultipartPipeReader(pipe.Reader, new string('b', 71)));
        Assert.Throws<ArgumentException>(() => new MultipartPipeReader(pipe.Reader, "a\r\nb"));
    }
}
