"""Where URDF text comes from, and its strict XML parse.

A source is a path, URDF text (`str`) or URDF bytes. Text and bytes may start with a
UTF-8 byte order mark and whitespace, as files written by editors and heredocs do.
The XML is parsed strictly (no recovery) and without entities: a DTD that declares an
entity, or a reference to one, is refused, so a URDF can neither read local files
(external entities) nor expand into gigabytes (nested entities); an XInclude is refused
too (lxml never expands one unless asked, so it would silently be left out).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from lxml import etree

from bioik.errors import BioikError, URDFError as URDFError

_BOM = b"\xef\xbb\xbf"
_ENTITY_ERROR = re.compile(r"entity(?: '([^']*)')?", re.IGNORECASE)
_XINCLUDE = "{http://www.w3.org/2001/XInclude}*"


def read_source(source: str | bytes | bytearray | os.PathLike) -> tuple[bytes, str, Path | None]:
    """(XML bytes, name for messages, folder of the file or None for text)."""
    if isinstance(source, (bytes, bytearray)):
        return _trim(bytes(source)), "<URDF bytes>", None
    if isinstance(source, str) and source.lstrip("\ufeff \t\r\n").startswith("<"):
        try:
            return _trim(source.encode()), "<URDF string>", None
        except UnicodeEncodeError as e:  # a lone surrogate: no text holds one
            raise URDFError(f"<URDF string>: character {source[e.start]!r} at position {e.start} is not text "
                            "(a lone surrogate); expected URDF text or UTF-8 bytes") from None
    if not isinstance(source, (str, os.PathLike)):
        raise URDFError(f"cannot load a URDF from a {type(source).__name__}; expected a path, URDF text (str) or URDF bytes")
    path = Path(source)
    if not is_file(path):
        raise URDFError(f"URDF file {str(path)!r} does not exist (expected a URDF path, URDF text or a bundled robot name)")
    return _trim(path.read_bytes()), str(path), path.resolve().parent


def is_file(path: Path) -> bool:
    """Whether `path` is a file; False for a name no file can have (pathlib raises for one
    too long, where it would otherwise say that nothing is there)."""
    try:
        return path.is_file()
    except OSError:
        return False


def looks_like_text(source: object) -> bool:
    """True for URDF text or bytes, False for what should name a file or a robot."""
    return isinstance(source, (bytes, bytearray)) or (isinstance(source, str) and source.lstrip("\ufeff \t\r\n").startswith("<"))


def _trim(data: bytes) -> bytes:
    """Without a leading byte order mark and whitespace (an XML declaration must come first)."""
    return data.removeprefix(_BOM).lstrip(b" \t\r\n")


def parse_xml(text: bytes, origin: str, error: type[BioikError] = URDFError) -> etree._Element:
    """The root <robot> element of a URDF (or, with `error=SRDFError`, an SRDF); `error`
    for malformed XML, any XML entity, or an XInclude (never expanded, so refused rather
    than silently left out)."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, remove_blank_text=True)
    try:
        root = etree.fromstring(text, parser=parser)
    except etree.XMLSyntaxError as e:
        line, col = e.position if e.position else (0, 0)
        m = _ENTITY_ERROR.search(e.msg)
        if m:
            ref = f"the entity reference &{m.group(1)};" if m.group(1) else "an entity reference"
            raise error(f"{origin} line {line}: {ref} is refused: bioik does not expand XML entities; write the value itself") from None
        raise error(f"malformed XML in {origin} at line {line}, column {col}: {e.msg}") from None
    dtd = root.getroottree().docinfo.internalDTD
    entities = [] if dtd is None else [e.name for e in dtd.iterentities()]
    if entities:
        raise error(f"{origin}: the DTD declares the entities {', '.join(entities)}; XML entities are refused (they can read files or expand without bound); write the values themselves")
    for el in root.iter(_XINCLUDE):
        raise error(f"{origin} line {el.sourceline}: <xi:include> is refused: bioik does not read other files into the XML; "
                    "expand it first (e.g. with xacro)")
    if root.tag != "robot":
        raise error(f"{origin}: the root element is <{root.tag}>, expected <robot>")
    return root
