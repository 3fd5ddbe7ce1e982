using Freight.Files;

namespace Freight.Tests.Files;

public sealed class ContainedPathTests : IDisposable
{
    // One temp directory holds the store's root and, beside it, an "outside" the links point to.
    private readonly TempDirectory _dir = new();
    private readonly string _root;
    private readonly string _outside;

    public ContainedPathTests()
    {
        _root = Directory.CreateDirectory(_dir.Combine("root")).FullName.TrimEnd('/');
        _outside = Directory.CreateDirectory(_dir.Combine("outside")).FullName.TrimEnd('/');
        File.WriteAllText(Path.Combine(_outside, "secret.txt"), "secret");
    }

    public void Dispose() => _dir.Dispose();

    private static StorageKey Key(string raw)
    {
        Assert.True(StorageKey.TryParse(raw, out var key, out var error), error);
        return key;
    }

    private string InRoot(string relative) => Path.Combine(_root, relative);

    [Fact]
    public void Combine_Key_JoinsUnderRoot()
    {
        Assert.Equal(_root + "/a/b.txt", ContainedPath.Combine(_root, Key("a/b.txt")));
        Assert.Equal(_root + "/a/b.txt", ContainedPath.Combine(_root + "/", Key("a/b.txt")));
    }

    [Theory]
    [InlineData("relative/root")]
    [InlineData("")]
    public void Combine_RootNotAbsolute_Throws(string root)
    {
        Assert.ThrowsAny<ArgumentException>(() => ContainedPath.Combine(root, Key("a")));
    }

    [Fact]
    public void TryCombine_PlainFileInPlainDirectories_Allowed()
    {
        Directory.CreateDirectory(InRoot("a/b"));
        File.WriteAllText(InRoot("a/b/c.txt"), "x");

        Assert.True(ContainedPath.TryCombine(_root, Key("a/b/c.txt"), out var path));
        Assert.Equal(InRoot("a/b/c.txt"), path);
    }

    [Fact]
    public void TryCombine_HiddenFileAndLongName_Allowed()
    {
        var name = new string('n', StorageKey.MaxSegmentBytes);
        File.WriteAllText(InRoot(name), "x");
        File.WriteAllText(InRoot(".env"), "x");

        Assert.True(ContainedPath.TryCombine(_root, Key(name), out _));
        Assert.True(ContainedPath.TryCombine(_root, Key(".env"), out _));
    }

    [Fact]
    public void TryCombine_MissingLeaf_Allowed()
    {
        Directory.CreateDirectory(InRoot("a"));

        Assert.True(ContainedPath.TryCombine(_root, Key("a/new.txt"), out var path));
        Assert.Equal(InRoot("a/new.txt"), path);
    }

    [Fact]
    public void TryCombine_MissingParentDirectories_Allowed()
    {
        Assert.True(ContainedPath.TryCombine(_root, Key("x/y/z/new.txt"), out var path));
        Assert.Equal(InRoot("x/y/z/new.txt"), path);
    }

    [Fact]
    public void TryCombine_FileLinkPointingOutside_Refused()
    {
        File.CreateSymbolicLink(InRoot("leak.txt"), Path.Combine(_outside, "secret.txt"));

        Assert.False(ContainedPath.TryCombine(_root, Key("leak.txt"), out var path));
        Assert.Null(path);
    }

    [Fact]
    public void TryCombine_FileLinkPointingInside_Refused()
    {
        File.WriteAllText(InRoot("real.txt"), "x");
        File.CreateSymbolicLink(InRoot("alias.txt"), InRoot("real.txt"));

        Assert.False(ContainedPath.TryCombine(_root, Key("alias.txt"), out _));
        Assert.True(ContainedPath.TryCombine(_root, Key("real.txt"), out _));
    }

    [Fact]
    public void TryCombine_RelativeFileLinkClimbingOut_Refused()
    {
        File.CreateSymbolicLink(InRoot("up.txt"), "../outside/secret.txt");

        Assert.False(ContainedPath.TryCombine(_root, Key("up.txt"), out _));
    }

    [Fact]
    public void TryCombine_DanglingLinkLeaf_Refused()
    {
        // Writing through a dangling link would create its target, wherever that is.
        File.CreateSymbolicLink(InRoot("dangling.txt"), Path.Combine(_outside, "created-by-attacker.txt"));

        Assert.False(ContainedPath.TryCombine(_root, Key("dangling.txt"), out _));
    }

    [Fact]
    public void TryCombine_DirectoryLinkInMiddlePointingOutside_Refused()
    {
        Directory.CreateDirectory(InRoot("a"));
        Directory.CreateSymbolicLink(InRoot("a/link"), _outside);

        Assert.False(ContainedPath.TryCombine(_root, Key("a/link/secret.txt"), out _));
    }

    [Fact]
    public void TryCombine_MissingLeafBelowDirectoryLink_Refused()
    {
        // A new file under a linked directory would be created outside the root.
        Directory.CreateSymbolicLink(InRoot("link"), _outside);

        Assert.False(ContainedPath.TryCombine(_root, Key("link/new/deeper.txt"), out _));
    }

    [Fact]
    public void TryCombine_DirectoryLinkPointingInside_Refused()
    {
        Directory.CreateDirectory(InRoot("real"));
        File.WriteAllText(InRoot("real/f.txt"), "x");
        Directory.CreateSymbolicLink(InRoot("alias"), InRoot("real"));

        Assert.False(ContainedPath.TryCombine(_root, Key("alias/f.txt"), out _));
        Assert.True(ContainedPath.TryCombine(_root, Key("real/f.txt"), out _));
    }

    [Fact]
    public void TryCombine_RootItselfIsLink_Followed()
    {
        // The root is the operator's choice; only what lies below it is checked.
        var linkedRoot = _dir.Combine("linked-root");
        Directory.CreateSymbolicLink(linkedRoot, _root);
        File.WriteAllText(InRoot("f.txt"), "x");

        Assert.True(ContainedPath.TryCombine(linkedRoot, Key("f.txt"), out var path));
        Assert.Equal(linkedRoot + "/f.txt", path);
    }

    [Theory]
    [InlineData("/etc/passwd")]
    [InlineData("relative/file")]
    public void IsContained_PathNotUnderRoot_False(string path)
    {
        Assert.False(ContainedPath.IsContained(_root, path));
    }

    [Fact]
    public void IsContained_SiblingSharingRootsNamePrefix_False()
    {
        // "/tmp/x/root-evil/f" starts with "/tmp/x/root" as a string but is not under it.
        Directory.CreateDirectory(_root + "-evil");

        Assert.False(ContainedPath.IsContained(_root, _root + "-evil/f.txt"));
    }

    [Theory]
    [InlineData("a/../../outside/secret.txt")]
    [InlineData("missing/../../outside/secret.txt")]
    [InlineData("missing/deeper/..")]
    [InlineData("a/../b")]
    [InlineData("a/./b")]
    [InlineData("a//b")]
    [InlineData("a/")]
    public void IsContained_DotOrEmptySegment_False(string relative)
    {
        Directory.CreateDirectory(InRoot("a"));

        Assert.False(ContainedPath.IsContained(_root, _root + "/" + relative));
    }

    [Fact]
    public void IsContained_DotDotAfterLink_False()
    {
        // Lexically "link/.." is the root again, but the kernel climbs from the link's target.
        Directory.CreateSymbolicLink(InRoot("link"), _outside);

        Assert.False(ContainedPath.IsContained(_root, _root + "/link/../f.txt"));
    }

    [Fact]
    public void IsContained_RootItself_True()
    {
        Assert.True(ContainedPath.IsContained(_root, _root));
    }

    [Fact]
    public void IsContained_FileBelowPlainFile_TrueAndLeftToTheOpenToFail()
    {
        File.WriteAllText(InRoot("file"), "x");

        Assert.True(ContainedPath.IsContained(_root, InRoot("file/child.txt")));
    }

    [Fact]
    public void IsContained_FileSystemRootAsRoot_ChecksBelowIt()
    {
        Assert.True(ContainedPath.IsContained("/", _root + "/missing.txt"));
        Assert.False(ContainedPath.IsContained("/", "/missing-freight-test-dir/../etc/passwd"));
    }
}
