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

    private string InRoot(string relative) => Path.Combine(_root, relative);

    [Fact]
    public void IsContained_PlainFileInPlainDirectories_Allowed()
    {
        Directory.CreateDirectory(InRoot("a/b"));
        File.WriteAllText(InRoot("a/b/c.txt"), "x");

        Assert.True(ContainedPath.IsContained(_root, InRoot("a/b/c.txt")));
    }

    [Fact]
    public void IsContained_HiddenFileAndLongName_Allowed()
    {
        var name = new string('n', StorageKey.MaxSegmentBytes);
        File.WriteAllText(InRoot(name), "x");
        File.WriteAllText(InRoot(".env"), "x");

        Assert.True(ContainedPath.IsContained(_root, InRoot(name)));
        Assert.True(ContainedPath.IsContained(_root, InRoot(".env")));
    }

    [Fact]
    public void IsContained_MissingLeaf_Allowed()
    {
        Directory.CreateDirectory(InRoot("a"));

        Assert.True(ContainedPath.IsContained(_root, InRoot("a/new.txt")));
    }

    [Fact]
    public void IsContained_MissingParentDirectories_Allowed()
    {
        Assert.True(ContainedPath.IsContained(_root, InRoot("x/y/z/new.txt")));
    }

    [Fact]
    public void IsContained_FileLinkPointingOutside_Refused()
    {
        File.CreateSymbolicLink(InRoot("leak.txt"), Path.Combine(_outside, "secret.txt"));

        Assert.False(ContainedPath.IsContained(_root, InRoot("leak.txt")));
    }

    [Fact]
    public void IsContained_FileLinkPointingInside_Refused()
    {
        File.WriteAllText(InRoot("real.txt"), "x");
        File.CreateSymbolicLink(InRoot("alias.txt"), InRoot("real.txt"));

        Assert.False(ContainedPath.IsContained(_root, InRoot("alias.txt")));
        Assert.True(ContainedPath.IsContained(_root, InRoot("real.txt")));
    }

    [Fact]
    public void IsContained_RelativeFileLinkClimbingOut_Refused()
    {
        File.CreateSymbolicLink(InRoot("up.txt"), "../outside/secret.txt");

        Assert.False(ContainedPath.IsContained(_root, InRoot("up.txt")));
    }

    [Fact]
    public void IsContained_DanglingLinkLeaf_Refused()
    {
        // Writing through a dangling link would create its target, wherever that is.
        File.CreateSymbolicLink(InRoot("dangling.txt"), Path.Combine(_outside, "created-by-attacker.txt"));

        Assert.False(ContainedPath.IsContained(_root, InRoot("dangling.txt")));
    }

    [Fact]
    public void IsContained_DirectoryLinkInMiddlePointingOutside_Refused()
    {
        Directory.CreateDirectory(InRoot("a"));
        Directory.CreateSymbolicLink(InRoot("a/link"), _outside);

        Assert.False(ContainedPath.IsContained(_root, InRoot("a/link/secret.txt")));
    }

    [Fact]
    public void IsContained_MissingLeafBelowDirectoryLink_Refused()
    {
        // A new file under a linked directory would be created outside the root.
        Directory.CreateSymbolicLink(InRoot("link"), _outside);

        Assert.False(ContainedPath.IsContained(_root, InRoot("link/new/deeper.txt")));
    }

    [Fact]
    public void IsContained_DirectoryLinkPointingInside_Refused()
    {
        Directory.CreateDirectory(InRoot("real"));
        File.WriteAllText(InRoot("real/f.txt"), "x");
        Directory.CreateSymbolicLink(InRoot("alias"), InRoot("real"));

        Assert.False(ContainedPath.IsContained(_root, InRoot("alias/f.txt")));
        Assert.True(ContainedPath.IsContained(_root, InRoot("real/f.txt")));
    }

    [Fact]
    public void IsContained_RootItselfIsLink_Followed()
    {
        // The root is the operator's choice; only what lies below it is checked.
        var linkedRoot = _dir.Combine("linked-root");
        Directory.CreateSymbolicLink(linkedRoot, _root);
        File.WriteAllText(InRoot("f.txt"), "x");

        Assert.True(ContainedPath.IsContained(linkedRoot, linkedRoot + "/f.txt"));
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
