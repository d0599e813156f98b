"""URDF sources: paths, text and bytes (with a byte order mark or leading whitespace);
XML entities and XIncludes are refused."""

import pytest
from urdf_samples import TREE_URDF

import bioik
from bioik.model import URDFError, parse_urdf

BOM = "\ufeff"


@pytest.mark.parametrize("source", [
    TREE_URDF.encode(),
    bytearray(TREE_URDF.encode()),
    BOM + TREE_URDF,
    BOM.encode() + TREE_URDF.encode(),
    "\n\n   \t" + TREE_URDF,
    b"\r\n  " + TREE_URDF.encode(),
    BOM + "\n " + TREE_URDF,
], ids=["bytes", "bytearray", "bom-str", "bom-bytes", "whitespace-str", "whitespace-bytes", "bom-whitespace"])
def test_text_bytes_bom_and_leading_whitespace_are_urdf_text(source):
    assert parse_urdf(source).joint_names == parse_urdf(TREE_URDF).joint_names
    assert bioik.load_robot(source).dof == 4


def test_file_with_bom_and_whitespace(tmp_path):
    path = tmp_path / "tree.urdf"
    path.write_bytes(b"\xef\xbb\xbf\n  " + TREE_URDF.encode())
    assert parse_urdf(path).name == "tree"
    assert bioik.load_robot(str(path)).dof == 4


def test_other_types_are_named():
    with pytest.raises(URDFError, match="cannot load a URDF from a int; expected a path, URDF text .str. or URDF bytes"):
        parse_urdf(42)


EXTERNAL = '<?xml version="1.0"?><!DOCTYPE robot [<!ENTITY x SYSTEM "file:///etc/passwd">]><robot name="r">{}<link name="a"/></robot>'


@pytest.mark.parametrize("urdf", [
    EXTERNAL.format(""),
    EXTERNAL.format("&x;"),
    EXTERNAL.replace('name="r"', 'name="&x;"').format(""),
    '<!DOCTYPE robot [<!ENTITY x "base">]><robot name="r"><link name="&x;"/></robot>',
    '<!DOCTYPE robot [<!ENTITY a "&b;&b;"><!ENTITY b "&a;&a;">]><robot name="&a;"><link name="a"/></robot>',
], ids=["declared-external", "external-in-text", "external-in-attribute", "internal", "loop"])
def test_entities_are_refused(urdf):
    with pytest.raises(URDFError, match="entit.* refused"):
        parse_urdf(urdf)


@pytest.mark.parametrize("where", ["", '<link name="b"><xi:include href="/etc/hostname" parse="text"/></link>'])
def test_xinclude_is_refused_not_resolved_nor_dropped(where):
    urdf = ('<robot name="r" xmlns:xi="http://www.w3.org/2001/XInclude">'
            + (where or '<xi:include href="/etc/hostname" parse="text"/>') + '<link name="a"/></robot>')
    with pytest.raises(URDFError, match=r"line 1: <xi:include> is refused"):
        parse_urdf(urdf)


def test_lxml_is_pinned_to_safe_parser_defaults():
    """lxml < 5 resolves external entities by default (a `file://` or FIFO entity read or
    hung the parser wherever a default parser was used); bioik requires 5 or later."""
    import re
    from pathlib import Path

    text = (Path(__file__).parents[2] / "pyproject.toml").read_text()
    pin = re.search(r'"lxml>=(\d+)', text)
    assert pin is not None and int(pin.group(1)) >= 5


def test_undeclared_entity_reference_is_refused():
    with pytest.raises(URDFError, match=r"line 1: the entity reference &x; is refused: bioik does not expand XML entities"):
        parse_urdf('<robot name="&x;"><link name="a"/></robot>')


def test_plain_dtd_and_character_references_still_load():
    urdf = '<!DOCTYPE robot [<!ELEMENT robot ANY>]><robot name="a&amp;b&#65;"><link name="a"/></robot>'
    assert parse_urdf(urdf).name == "a&bA"


def test_a_path_too_long_for_the_file_system_does_not_exist():
    with pytest.raises(URDFError, match="URDF file 'xxx.* does not exist"):
        parse_urdf("x" * 5000 + ".urdf")


def test_text_with_a_lone_surrogate_is_refused_by_position():
    with pytest.raises(URDFError, match=r"character '\\ud800' at position 14 is not text \(a lone surrogate\)"):
        parse_urdf('<robot name="a\ud800"><link name="a"/></robot>')
