"""The model map's stored index (model/mapindex.py): used only when it describes the map's own bytes;
anything else (corrupt, another map's, a symlink, an unreadable directory, offsets that point at
the wrong entry) falls back to parsing the map whole. Never a wrong entry, so never a wrong price."""

from __future__ import annotations

import json
import os
import time
import zlib
from pathlib import Path

import pytest

from flue_tui.config.paths import cache_dir
from flue_tui.model import mapindex, modelmap

ENTRIES = {
    "gpt-4.1": {"input_cost_per_token": 2e-06, "output_cost_per_token": 8e-06, "litellm_provider": "openai"},
    "anthropic/claude-x": {"input_cost_per_token": 3e-06, "output_cost_per_token": 1.5e-05, "max_input_tokens": 200000},
    "sample_spec": {"nested": {"gpt-4.1": {"input_cost_per_token": 1.0}}},
}


def write_map(path: Path, entries: dict | None = None, indent: int | None = 4) -> Path:
    path.write_text(json.dumps(entries or ENTRIES, indent=indent) + "\n")
    return path


def index_file() -> Path:
    return cache_dir() / mapindex.INDEX_NAME


def read_index() -> tuple[list[str], list[list[str]]]:
    """The stored index as an attacker would edit it: its head lines (the version, the map's stamp),
    and per key its line's fields (the key as JSON, then the offsets of the key, of its value and
    past the value)."""
    lines = index_file().read_text().split("\n")
    return lines[:2], [line.split("\t") for line in lines[3:-1]]


def write_index(head: list[str], rows: list[list[str]], *, crc: bool = True) -> None:
    """As someone who can write flue's cache would: with the CRC of what they wrote (`crc` False:
    the old one kept, as a damaged file would)."""
    body = "".join("\t".join(map(str, row)) + "\n" for row in rows).encode()
    old = index_file().read_text().split("\n")[2]
    index_file().write_bytes(
        "\n".join(head).encode() + b"\n" + (b"%d" % zlib.crc32(body) if crc else old.encode()) + b"\n" + body
    )


def row(rows: list[list[str]], key: str) -> list[str]:
    return next(r for r in rows if r[0] == json.dumps(key))


# No key twice (ENTRIES has gpt-4.1 inside sample_spec too: looking it up parses the map whole).
UNIQUE = dict(ENTRIES, sample_spec={"nested": {"other": {"input_cost_per_token": 1.0}}})


def test_the_first_read_writes_an_index_the_next_uses(tmp_path: Path) -> None:
    path = write_map(tmp_path / "map.json", UNIQUE)
    first = modelmap.read(str(path))
    assert first.index is None and index_file().is_file()  # parsed whole, the index stored
    second = modelmap.read(str(path))
    assert second.index is not None  # found through the index
    for key, value in UNIQUE.items():
        assert second.get(key) == value == first.get(key)
    assert second.get("no-such-model") is None
    assert second.index is not None  # every entry was found where the index said


def test_litellms_own_map_through_the_index_equals_json_load() -> None:
    path = modelmap._path()
    assert path is not None
    with open(path, "rb") as f:
        whole = json.loads(f.read())
    modelmap.read(path)  # writes the index
    indexed = modelmap.read(path)
    assert indexed.index is not None
    for key in list(whole)[:: max(1, len(whole) // 200)] + ["gpt-4.1", "claude-sonnet-4-5", "gemini/gemini-2.5-pro"]:
        assert indexed.get(key) == whole.get(key)


@pytest.mark.parametrize(
    "text",
    [
        "{",
        "not json",
        '{"version": 1}',
        "[]",
        '{"version": 1, "map": {"size": 1, "sha256": "0"}, "keys": ["gpt-4.1"], "offsets": [1, 2, 3]}',
        "\x00" * 100,
        "\udcff",
        mapindex.HEAD.decode(),
        mapindex.HEAD.decode() + "[1, 2, 3, 4, 5]\n" + '"gpt-4.1"\t1\t2\t3\n',  # another file's stamp
    ],
)
def test_a_corrupt_index_is_not_used(tmp_path: Path, text: str) -> None:
    path = write_map(tmp_path / "map.json")
    index_file().parent.mkdir(parents=True, exist_ok=True)
    index_file().write_bytes(text.encode("utf-8", "surrogateescape"))
    got = modelmap.read(str(path))
    assert got.index is None and got.get("gpt-4.1") == ENTRIES["gpt-4.1"]
    assert modelmap.read(str(path)).index is not None  # the broken one was replaced by a good one


@pytest.mark.parametrize("crc", ["", "x", "-1", "99999999999", "1 ", "٣"])
def test_an_index_whose_crc_line_is_not_a_crc_is_not_used(tmp_path: Path, crc: str) -> None:
    path = write_map(tmp_path / "map.json", UNIQUE)
    modelmap.read(str(path))
    lines = index_file().read_text().split("\n")
    lines[2] = crc
    index_file().write_text("\n".join(lines))
    got = modelmap.read(str(path))
    assert got.index is None and got.get("gpt-4.1") == UNIQUE["gpt-4.1"]


def test_a_stamped_index_with_broken_lines_is_not_believed(tmp_path: Path) -> None:
    """The map's own stamp, lines that are not what flue writes: each key asked for is read right."""
    path = write_map(tmp_path / "map.json", UNIQUE)
    modelmap.read(str(path))
    head, rows = read_index()
    for broken in (["1", "2"], ["", "", ""], ["1", "2", "3", "4"], ["1 ", "2", "3"], ["9" * 13, "1", "2"]):
        write_index(head, [[json.dumps("gpt-4.1"), *broken], *rows])  # the first line of a key is its own
        got = modelmap.read(str(path))
        assert got.get("gpt-4.1") == UNIQUE["gpt-4.1"] and got.get("anthropic/claude-x") == UNIQUE["anthropic/claude-x"]


def test_a_damaged_index_is_not_used_and_a_dropped_key_is_never_mispriced(tmp_path: Path) -> None:
    """A key with no line is not in the map, as far as the index's CRC vouches: a damaged index
    (a line lost, its CRC not matching) is not used; one rewritten on purpose without a key (by
    someone who can write flue's cache, and so its config) leaves that model unknown, never
    priced by another's entry."""
    path = write_map(tmp_path / "map.json", UNIQUE)
    modelmap.read(str(path))
    head, rows = read_index()
    kept = [r for r in rows if r[0] != json.dumps("gpt-4.1")]
    write_index(head, kept, crc=False)
    got = modelmap.read(str(path))
    assert got.index is None and got.get("gpt-4.1") == UNIQUE["gpt-4.1"]  # damaged: parsed whole
    assert modelmap.read(str(path)).index is not None  # and a whole index written again
    write_index(head, kept)
    assert modelmap.read(str(path)).get("gpt-4.1") is None


def test_offsets_at_the_spaces_before_a_nested_key_are_not_used(tmp_path: Path) -> None:
    """The key's offset must be its opening quote: one in the indentation before a nested key of
    the same name would make the check that the key is nowhere else count only that indentation."""
    path = write_map(tmp_path / "map.json")
    modelmap.read(str(path))
    head, rows = read_index()
    raw = path.read_bytes()
    quote = raw.index(b'"gpt-4.1"', raw.index(b'"nested"'))
    spaces = raw.rindex(b"\n", 0, quote) + 1  # the indentation before it
    value_at = raw.index(b"{", quote)
    row(rows, "gpt-4.1")[1:] = [str(spaces), str(value_at), str(raw.index(b"}", value_at) + 1)]
    write_index(head, rows)
    got = modelmap.read(str(path))
    assert got.get("gpt-4.1") == ENTRIES["gpt-4.1"]  # not {"input_cost_per_token": 1.0}


def test_a_changed_map_file_is_not_read_through_the_old_index(tmp_path: Path) -> None:
    """Stamped as a .pyc is with its source: the same path rewritten (an upgrade of litellm in
    place), even to the same size, is another map."""
    path = write_map(tmp_path / "map.json", UNIQUE)
    modelmap.read(str(path))
    changed = dict(UNIQUE, **{"gpt-4.1": {**UNIQUE["gpt-4.1"], "input_cost_per_token": 3e-06}})
    text = json.dumps(changed, indent=4) + "\n"
    assert len(text) == path.stat().st_size  # same size, other bytes
    path.write_text(text)
    got = modelmap.read(str(path))
    assert got.index is None and got.get("gpt-4.1")["input_cost_per_token"] == 3e-06


def test_keys_json_escapes_are_found_exactly(tmp_path: Path) -> None:
    entries = {"a\tb": {"x": 1}, "a": {"x": 2}, 'q"uote': {"x": 3}, "b\\n": {"x": 4}, "b\n": {"x": 5}}
    path = write_map(tmp_path / "map.json", entries)
    modelmap.read(str(path))
    got = modelmap.read(str(path))
    assert got.index is not None
    assert [got.get(k) for k in entries] == list(entries.values()) and got.index is not None
    assert got.get("a\t") is None and got.get("b") is None


def test_the_old_json_index_goes_when_a_new_one_is_written(tmp_path: Path) -> None:
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    old = folder / mapindex.OLD_NAMES[0]
    old.write_text('{"version": 1}')
    modelmap.read(str(write_map(tmp_path / "map.json")))
    assert not old.exists() and index_file().is_file()


def test_an_index_of_another_map_version_is_not_used(tmp_path: Path) -> None:
    old = write_map(tmp_path / "old.json")
    modelmap.read(str(old))  # the index of the old map
    changed = dict(ENTRIES, **{"gpt-4.1": {**ENTRIES["gpt-4.1"], "input_cost_per_token": 9e-06}})
    new = write_map(tmp_path / "new.json", changed)
    got = modelmap.read(str(new))
    assert got.index is None
    assert got.get("gpt-4.1")["input_cost_per_token"] == 9e-06


def test_offsets_that_point_at_another_entry_fall_back_to_the_whole_map(tmp_path: Path) -> None:
    path = write_map(tmp_path / "map.json")
    modelmap.read(str(path))
    head, rows = read_index()
    a, b = row(rows, "gpt-4.1"), row(rows, "anthropic/claude-x")
    a[1:], b[1:] = b[1:], a[1:]
    write_index(head, rows)  # the map's own stamp, lying offsets
    got = modelmap.read(str(path))
    assert got.index is not None
    assert got.get("gpt-4.1") == ENTRIES["gpt-4.1"]  # not claude-x's prices
    assert got.index is None  # the lie was seen: the map was parsed whole


@pytest.mark.parametrize("bad", ["12", None, 1.5, True, [1], -(2**70)])
def test_a_malformed_entry_is_seen_when_it_is_asked_for(tmp_path: Path, bad: object) -> None:
    """Entries are checked one by one, as they are asked for (not all ~5,000 each start): a key
    whose offsets are not integers reads from the map whole; the other keys' still serve."""
    path = write_map(tmp_path / "map.json", UNIQUE)
    modelmap.read(str(path))
    head, rows = read_index()
    row(rows, "gpt-4.1")[2] = json.dumps(bad)
    rows.append(["7", "1", "2", "3"])  # not a key at all: never matches one asked for
    write_index(head, rows)
    got = modelmap.read(str(path))
    assert got.get("anthropic/claude-x") == UNIQUE["anthropic/claude-x"] and got.index is not None
    assert got.get("gpt-4.1") == UNIQUE["gpt-4.1"]
    assert got.index is None  # the malformed entry was seen: the map was parsed whole
    assert got.get("no-such-model") is None


@pytest.mark.parametrize("shift", [-1, 1, 7, 10**9])
def test_offsets_shifted_anywhere_never_give_a_wrong_entry(tmp_path: Path, shift: int) -> None:
    path = write_map(tmp_path / "map.json", indent=None)
    modelmap.read(str(path))
    head, rows = read_index()
    write_index(head, [[r[0], *(int(n) + shift for n in r[1:])] for r in rows])
    got = modelmap.read(str(path))
    for key, value in ENTRIES.items():
        assert got.get(key) == value


def test_an_index_that_is_a_symlink_is_not_followed(tmp_path: Path) -> None:
    path = write_map(tmp_path / "map.json")
    modelmap.read(str(path))
    elsewhere = tmp_path / "elsewhere.json"
    index_file().rename(elsewhere)  # a good index, but behind a link
    index_file().symlink_to(elsewhere)
    got = modelmap.read(str(path))
    assert got.index is None and got.get("gpt-4.1") == ENTRIES["gpt-4.1"]
    assert not index_file().is_symlink() and index_file().is_file()  # replaced, not written through
    assert elsewhere.read_text() == index_file().read_text()  # the link's target left as it was


def test_an_unusable_cache_directory_still_reads_the_map(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_map(tmp_path / "map.json")
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the directory goes")  # neither readable nor writable as one
    monkeypatch.setenv("FLUE_HOME", str(blocked))
    assert cache_dir() == blocked
    for _ in range(2):
        got = modelmap.read(str(path))
        assert got.index is None and got.get("anthropic/claude-x") == ENTRIES["anthropic/claude-x"]


def test_an_unreadable_index_is_not_used(tmp_path: Path) -> None:
    path = write_map(tmp_path / "map.json")
    modelmap.read(str(path))
    index_file().unlink()
    os.mkfifo(index_file())  # not a regular file: never opened for reading (it would block)
    got = modelmap.read(str(path))
    assert got.index is None and got.get("gpt-4.1") == ENTRIES["gpt-4.1"]


def test_a_huge_index_is_not_read(tmp_path: Path) -> None:
    path = write_map(tmp_path / "map.json")
    modelmap.read(str(path))
    with open(index_file(), "ab") as f:
        f.truncate(mapindex.MAX_INDEX_BYTES + 1)
    assert modelmap.read(str(path)).index is None


@pytest.mark.parametrize(
    "text",
    [
        '{"a": {"x": 1}, "a": {"x": 2}}',  # a repeated key keeps the last, as json.loads
        '{"a": 1, "b": {"x": 1}}',  # a value that is not an object is never indexed
        '{ "a" : { "x" : [1, {"b": 2}] } ,\n\t"b\\"q" : {} }',
        "{}",
        '{"ünïcode": {"x": 1}, "a": {"y": 2}}',  # not ASCII: parsed whole, no offsets
    ],
)
def test_scan_reads_as_json_loads(text: str) -> None:
    entries, where = mapindex.scan(text.encode())
    assert entries == json.loads(text)
    raw = text.encode()
    for key, offsets in where.items():
        if text.count(json.dumps(key)) > 1:  # a key found twice: the map itself decides, parsed whole
            with pytest.raises(mapindex.Stale):
                mapindex.entry_at(raw, key, offsets)
        else:
            assert mapindex.entry_at(raw, key, offsets) == entries[key]
    assert all(isinstance(entries[key], dict) for key in where)


@pytest.mark.parametrize("text", ["[]", '{"a": 1', '{"a" 1}', '{"a": 1 "b": 2}', "", '"x"'])
def test_a_broken_map_reads_as_no_map(tmp_path: Path, text: str) -> None:
    path = tmp_path / "map.json"
    path.write_text(text)
    got = modelmap.read(str(path))
    assert got.get("a") is None and not index_file().exists()


def test_offsets_at_an_object_nested_under_the_same_key_are_not_used(tmp_path: Path) -> None:
    """ENTRIES' sample_spec holds an object under "gpt-4.1" too: an index (any process of this user
    can write one) that points gpt-4.1 there must not price gpt-4.1 by it."""
    path = write_map(tmp_path / "map.json")
    modelmap.read(str(path))
    head, rows = read_index()
    raw = path.read_bytes()
    key_at = raw.index(b'"gpt-4.1"', raw.index(b'"nested"'))
    value_at = raw.index(b"{", key_at)
    end = raw.index(b"}", value_at) + 1
    row(rows, "gpt-4.1")[1:] = [str(key_at), str(value_at), str(end)]
    write_index(head, rows)  # the map's own stamp, offsets into sample_spec
    got = modelmap.read(str(path))
    assert got.index is not None
    assert got.get("gpt-4.1") == ENTRIES["gpt-4.1"]  # not {"input_cost_per_token": 1.0}
    assert got.index is None  # seen: the map was parsed whole


def test_temporary_files_of_killed_writers_do_not_pile_up(tmp_path: Path) -> None:
    """kill -9 between writing an index and renaming it leaves a whole index behind (~300 kB with
    litellm's map): the next writer removes those, never one another process may still be writing."""
    path = write_map(tmp_path / "map.json")
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    old = time.time() - 2 * mapindex.TMP_STALE_S
    for i in range(30):
        left = folder / f"{mapindex.TMP_PREFIX}{i:04d}"
        left.write_text("{}")
        os.utime(left, (old, old))
    fresh = folder / f"{mapindex.TMP_PREFIX}being-written"
    fresh.write_text("{")
    outside = tmp_path / "not-flues.txt"
    outside.write_text("kept")
    link = folder / f"{mapindex.TMP_PREFIX}link"
    link.symlink_to(outside)
    os.utime(link, (old, old), follow_symlinks=False)
    assert modelmap.read(str(path)).index is None  # no index yet: parsed whole, one written
    assert sorted(p.name for p in folder.iterdir()) == sorted([fresh.name, mapindex.INDEX_NAME])
    assert outside.read_text() == "kept"  # the link went, not what it points at
    assert modelmap.read(str(path)).index is not None


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user takes root")
def test_an_index_of_another_user_is_not_used(tmp_path: Path) -> None:
    """A cache directory shared with others (FLUE_HOME or XDG_CACHE_HOME in /tmp): an index someone
    else put there is not read, and is replaced by this user's own."""
    path = write_map(tmp_path / "map.json")
    modelmap.read(str(path))
    os.chown(index_file(), 65534, 65534)
    assert modelmap.read(str(path)).index is None
    assert index_file().stat().st_uid == os.geteuid()  # replaced by a fresh one of this user's
    assert modelmap.read(str(path)).index is not None
