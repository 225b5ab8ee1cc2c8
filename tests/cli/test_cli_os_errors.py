"""The operating system's refusals as one line naming the path (exit 1), found before the work
where they can be; atomic writes that write through a link and refuse a special file."""

import errno
import os
import stat

import pytest

from amazons_env import files
from amazons_env.errors import InvalidFileError
from amazons_env.records import GameRecord

from amazons_cli.main import FAILURE, INPUT_ERROR, main

LONG = "a" * 300 + ".json"  # over any file system's 255-byte name


def test_an_unwritable_json_path_is_refused_before_the_first_game(tmp_path, capsys, monkeypatch):
    played = []
    monkeypatch.setattr("agents.arena.matches.play_game", lambda *a, **k: played.append(1))
    code = main(["match", "random", "random", "--games", "2", "--json", str(tmp_path / LONG)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == FAILURE and not played
    assert err[-1].startswith("amazons match: failed: [Errno 36] File name too long:") and LONG[:50] in err[-1]


def test_a_full_disk_is_one_line_naming_the_file_and_the_old_file_is_kept(tmp_path, capsys, monkeypatch):
    results = tmp_path / "results.json"

    def full(descriptor):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(files.os, "fsync", full)
    code = main(["match", "random", "random", "--games", "1", "--size", "6", "--json", str(results)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == FAILURE and err[-1] == f"amazons match: failed: [Errno 28] No space left on device: '{results}'"
    assert not results.exists() and not (tmp_path / "results.json.tmp").exists()
    record = tmp_path / "game.txt"
    monkeypatch.undo()
    GameRecord(["d1-d7/g7"]).save(record)
    page = tmp_path / "game.html"
    page.write_text("old")
    monkeypatch.setattr(files.os, "fsync", full)
    main(["replay", str(record), "--html", str(page)])
    assert "No space left on device" in capsys.readouterr().err and page.read_text() == "old"


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs a device node")
def test_a_special_file_is_refused_not_replaced(tmp_path, capsys):
    record = tmp_path / "game.txt"
    GameRecord(["d1-d7/g7"]).save(record)
    assert main(["replay", str(record), "--html", "/dev/null"]) == INPUT_ERROR
    assert "cannot write '/dev/null': it is a FIFO, device or socket" in capsys.readouterr().err
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(InvalidFileError, match="FIFO"):
        files.write_json(fifo, {})
    with pytest.raises(InvalidFileError, match="folder"):
        files.check_writable(tmp_path)


def test_a_link_is_written_through_and_a_planted_temporary_link_is_not(tmp_path):
    real, link = tmp_path / "real.json", tmp_path / "link.json"
    real.write_text("{}")
    link.symlink_to(real)
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / "real.json.tmp").symlink_to(victim)  # a link where the temporary file goes
    files.write_json(link, {"a": 1})
    assert link.is_symlink() and files.read_json(real, "x") == {"a": 1}
    assert victim.read_text() == "keep"


def test_a_negative_seed_names_the_option(capsys):
    assert main(["match", "random", "random", "--seed", "-1"]) == INPUT_ERROR
    assert "--seed -1: must be a whole number >= 0" in capsys.readouterr().err
