using System.Text;
using Freight.Multipart;
using Microsoft.Net.Http.Headers;

namespace Freight.Tests.Multipart;

public class PlainContentDispositionTests
{
    [Theory]
    [InlineData("form-data; name=\"field1\"", "form-data", "field1", null)]
    [InlineData("form-data; name=\"upload\"; filename=\"photo.jpg\"", "form-data", "upload", "photo.jpg")]
    [InlineData("form-data; name=plain; filename=a.txt", "form-data", "plain", "a.txt")]
    [InlineData("form-data; filename=\"\"; name=\"empty\"", "form-data", "empty", "")]
    [InlineData("Form-Data;NAME=\"a\";FileName=\"b\";", "Form-Data", "a", "b")]
    [InlineData("attachment ;\tname = \"a;b,c d\" ; size=12", "attachment", "a;b,c d", null)]
    [InlineData("form-data; name=\"first\"; name=\"second\"; filename=\"x\"; filename=\"y\"", "form-data", "first", "x")]
    [InlineData("form-data", "form-data", null, null)]
    [InlineData("form-data;", "form-data", null, null)]
    public void TryParse_PlainValue_GivesTypeNameAndFileName(string value, string type, string? name, string? fileName)
    {
        Assert.True(PlainContentDisposition.TryParse(value, out var parsedType, out var parsedName, out var parsedFileName));
        Assert.Equal(type, parsedType);
        Assert.Equal(name, parsedName);
        Assert.Equal(fileName, parsedFileName);
    }

    [Theory]
    [InlineData("form-data; name=\"a\"; filename*=UTF-8''%C3%A9.txt")]
    [InlineData("form-data; name=\"a\\\"b\"")]
    [InlineData("form-data; name=\"a\"; filename=\"=?utf-8?B?w6l0w6kudHh0?=\"")]
    [InlineData("form-data; name=\"caf\u00e9\"")]
    [InlineData("form-data; name")]
    [InlineData("form-data; name=")]
    [InlineData("form-data; name=\"open")]
    [InlineData("form-data, attachment")]
    [InlineData("form-data; name=\"a\"b")]
    [InlineData(" form-data")]
    [InlineData("")]
    public void TryParse_ValueThatIsNotPlain_LeavesItToTheFullParser(string value)
    {
        Assert.False(PlainContentDisposition.TryParse(value, out _, out _, out _));
    }

    [Fact]
    public void TryParse_FormData_IsTheSharedString()
    {
        Assert.True(PlainContentDisposition.TryParse("form-data; name=\"a\"", out var type, out _, out _));
        Assert.Same(PlainContentDisposition.FormData, type);
    }

    [Fact]
    public void TryParse_RandomValues_AgreeWithContentDispositionHeaderValue()
    {
        // Whatever the plain reader accepts, ASP.NET Core's parser must accept and read the same way: the plain reader
        // is only a shortcut, never a second opinion on what a part's name is.
        var random = new Random(7578);
        string[] pieces =
        [
            "form-data", "attachment", "Form-Data", ";", "; ", " ", "\t", "name", "NAME", "filename", "FileName",
            "filename*", "size", "=", "= ", "\"", "\"\"", "\\", ",", "=?", "?=", "a", "b.txt", "x y", "%41", "*",
            "\u00e9", "'",
        ];

        var accepted = 0;
        for (var i = 0; i < 50_000; i++)
        {
            var value = new StringBuilder();
            var count = random.Next(1, 12);
            for (var j = 0; j < count; j++)
            {
                value.Append(pieces[random.Next(pieces.Length)]);
            }

            var text = value.ToString();
            if (!PlainContentDisposition.TryParse(text, out var type, out var name, out var fileName))
            {
                continue;
            }

            accepted++;
            Assert.True(ContentDispositionHeaderValue.TryParse(text, out var full), $"accepted but invalid: {text}");
            Assert.Equal(full.DispositionType.Value, type);
            Assert.Equal(full.Name.HasValue ? full.Name.Value : null, name);
            Assert.False(full.FileNameStar.HasValue, $"accepted with filename*: {text}");
            Assert.Equal(full.FileName.HasValue ? full.FileName.Value : null, fileName);
        }

        // The generator must reach the plain reader often, or this test could not fail.
        Assert.True(accepted > 1_000, $"only {accepted} plain values");
    }

    [Fact]
    public void CreateSection_PlainAndFullParsers_GiveTheSameSection()
    {
        // The same disposition with a backslash escape (full parser) and without (plain reader) keeps every property.
        var plain = MultipartHeaderParser.CreateSection([new("Content-Disposition", "form-data; name=\"f\"; filename=\"a.txt\""), new("Content-Type", "text/plain")]);
        var full = MultipartHeaderParser.CreateSection([new("Content-Disposition", "form-data; name=\"f\"; filename=\"a.txt\"; x=\"\\\\\""), new("Content-Type", "text/plain")]);
        Assert.Equal(full.DispositionType, plain.DispositionType);
        Assert.Equal(full.Name, plain.Name);
        Assert.Equal(full.FileName, plain.FileName);
        Assert.Equal(full.ContentType, plain.ContentType);
        Assert.Equal("a.txt", plain.FileName);
    }
}
