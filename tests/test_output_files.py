"""Outputs written as Unix tools write them (ir_bright.outputs.Output, ``evaluate -o``):
regular files replaced atomically, special files and symlinks' targets written in place,
the cache and the command's own inputs refused, a failed write a one-line error."""

from __future__ import annotations

import json
import os
import signal
import stat
import threading
from pathlib import Path

import ir_datasets
import pytest

import ir_bright  # noqa: F401
from ir_bright.cli import main
from ir_bright.errors import IrBrightError
from ir_bright.outputs import Output, write_output
from tests import protocol

TEST_ID = "ir-bright-test/outputs"
QRELS = [("1", "gold-a", 1), ("1", "own", -100), ("2", "gold-b", 1)]
RUN_TEXT = "1 Q0 own 1 9.0 t\n1 Q0 gold-a 2 4.0 t\n2 Q0 gold-b 1 3.0 t\n"


@pytest.fixture
def dataset(monkeypatch):
    tiny = protocol.tiny_dataset(QRELS, ("nDCG@10",), TEST_ID)
    monkeypatch.setitem(ir_datasets.registry._registered, TEST_ID, tiny)


@pytest.fixture
def run_file(tmp_path):
    path = tmp_path / "r.run"
    path.write_text(RUN_TEXT)
    return path


def evaluate(capsys, *argv):
    status = main(["evaluate", TEST_ID, *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))


def test_a_regular_file_is_replaced_whole_keeping_its_permissions(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    with Output(target).open() as out:
        out.write("new\n")
        assert target.read_text() == "old\n"  # nothing shows before the end
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert leftovers(tmp_path) == []


def test_a_new_path_in_new_folders_is_created(tmp_path):
    target = tmp_path / "a" / "b" / "out.txt"
    assert write_output(target, lambda out: out.write("x\n")) == 2
    assert target.read_text() == "x\n"


@pytest.mark.parametrize("failure", [RuntimeError, KeyboardInterrupt])
def test_a_failed_write_leaves_the_old_file_and_no_partial_one(tmp_path, failure):
    target = tmp_path / "out.txt"
    target.write_text("complete\n")
    with pytest.raises(failure), Output(target).open() as out:
        out.write("half")
        raise failure()
    assert target.read_text() == "complete\n"
    assert leftovers(tmp_path) == []


def test_sigterm_during_a_write_removes_the_partial_file(tmp_path):
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        pytest.skip("SIGTERM is handled by the test runner here")
    target = tmp_path / "new.txt"
    with pytest.raises(SystemExit) as ended, Output(target).open() as out:
        out.write("half")
        os.kill(os.getpid(), signal.SIGTERM)
    assert ended.value.code == 143
    assert not target.exists() and leftovers(tmp_path) == []
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_a_symlink_stays_a_link_and_its_target_gets_the_output(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_output(link, lambda out: out.write("new\n"))
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == "new\n"


def test_a_fifo_is_written_in_place(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(Path(fifo).read_text()))
    reader.start()
    write_output(fifo, lambda out: out.write("through the pipe\n"))
    reader.join(10)
    assert received == ["through the pipe\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # not replaced by a regular file


def test_dev_null_stays_a_device():
    write_output("/dev/null", lambda out: out.write("gone\n"))
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_dash_and_none_mean_stdout(capsys):
    write_output("-", lambda out: out.write("a\n"))
    write_output(None, lambda out: out.write("b\n"))
    assert capsys.readouterr().out == "a\nb\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_dev_full_is_a_one_line_no_space_error():
    with pytest.raises(IrBrightError, match="cannot write the run to /dev/full: no space left"):
        write_output("/dev/full", lambda out: out.write("x" * 100000), "the run")


def test_a_path_inside_the_cache_is_refused(isolated_home, tmp_path):
    cached = isolated_home / "bright" / "pony.queries.parquet"
    cached.parent.mkdir()
    cached.write_bytes(b"PAR1")
    link = tmp_path / "innocent.trec"
    link.symlink_to(cached)
    for path in (cached, isolated_home / "new" / "run.trec", link):
        with pytest.raises(IrBrightError, match="inside the ir_datasets cache"):
            Output(path)
    assert cached.read_bytes() == b"PAR1"


def test_an_input_is_refused_even_through_another_name(tmp_path, run_file):
    alias = tmp_path / "alias.run"
    alias.symlink_to(run_file)
    for path in (run_file, alias, tmp_path / "." / "r.run"):
        with pytest.raises(IrBrightError, match="is the input"):
            Output(path, inputs=[run_file])
    Output(tmp_path / "other.run", inputs=[run_file, "-"])  # others are fine


@pytest.mark.parametrize("bad", ["", "  "])
def test_an_empty_path_is_refused(bad):
    with pytest.raises(IrBrightError, match="-o is empty"):
        Output(bad)


def test_evaluate_writes_its_table_with_o(dataset, tmp_path, run_file, capsys):
    target = tmp_path / "scores.json"
    status, out, _ = evaluate(capsys, run_file, "--format", "json", "-o", target)
    assert status == 0 and out == ""
    shown = evaluate(capsys, run_file, "--format", "json")[1]
    assert json.loads(target.read_text()) == json.loads(shown)


def test_evaluate_o_dash_writes_stdout(dataset, run_file, capsys):
    status, out, _ = evaluate(capsys, run_file, "-o", "-")
    assert status == 0 and out.split()[:2] == ["run", "nDCG@10"]


def one_line_error(status, out, err, pattern):
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert pattern in err, err


def test_evaluate_refuses_to_write_over_its_input_run(dataset, run_file, capsys):
    one_line_error(*evaluate(capsys, run_file, "-o", run_file), "is the input")
    assert run_file.read_text() == RUN_TEXT


def test_evaluate_refuses_an_output_in_the_cache(dataset, run_file, isolated_home, capsys):
    target = isolated_home / "bright" / "pony.queries.parquet"
    one_line_error(*evaluate(capsys, run_file, "-o", target), "inside the ir_datasets cache")
    assert not target.exists()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_evaluate_to_dev_full_exits_2_with_no_space_left(dataset, run_file, capsys):
    one_line_error(*evaluate(capsys, run_file, "-o", "/dev/full"), "no space left on device")


def test_a_fifo_whose_reader_leaves_early_ends_like_a_closed_stdout(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def read_one_line():
        with open(fifo) as pipe:
            pipe.readline()

    reader = threading.Thread(target=read_one_line)
    reader.start()
    with pytest.raises(BrokenPipeError):
        write_output(fifo, lambda out: [out.write("line\n") for _ in range(1_000_000)])
    reader.join(10)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_an_error_of_the_work_inside_the_block_is_not_called_a_write_failure(tmp_path):
    from ir_bright.errors import DownloadError

    target = tmp_path / "run.trec"
    with pytest.raises(DownloadError, match="hub unreachable"):
        with Output(target, "the run").open():
            raise DownloadError("hub unreachable")  # an OSError too, as ir_datasets' are
    elsewhere = PermissionError(13, "Permission denied", str(tmp_path / "cached.parquet"))
    with pytest.raises(PermissionError):
        with Output(target, "the run").open():
            raise elsewhere  # reading an input failed, not writing the run
    assert not target.exists() and not list(tmp_path.glob(".run.trec.*"))


def test_bytes_are_written_exactly_and_atomically(tmp_path):
    data = bytes(range(256)) * 3 + b"\r\n\n\r"
    target = tmp_path / "chart.png"
    Output(target, "the plot").write_bytes(data)
    assert target.read_bytes() == data
    assert not list(tmp_path.glob(".chart.png.*"))


def test_a_plot_in_the_cache_is_refused(isolated_home):
    from ir_bright.results.errors import ReportError
    from ir_bright.results.plots import check_plot_path

    with pytest.raises(ReportError, match="inside the ir_datasets cache"):
        check_plot_path(isolated_home / "bright" / "chart.png")


@pytest.mark.parametrize("length", [236, 237, 250, 255])
def test_a_file_name_of_up_to_255_bytes_is_written_and_its_leftovers_reaped(tmp_path, length):
    from ir_bright import atomic

    name = ("é" * length)[: length // 2] + "x" * (length % 2)  # two bytes a character
    assert len(os.fsencode(name)) == length
    target = tmp_path / name
    with Output(target).open() as out:
        out.write("run\n")
    assert target.read_text() == "run\n" and leftovers(tmp_path) == []
    pending = atomic.Pending(target)  # a writer killed mid-write leaves its temporary file
    os.close(os.dup(pending.file.fileno()))
    assert atomic.temporary_names(target).fullmatch(pending.path.name)
    assert len(os.fsencode(pending.path.name)) <= 255
    pending.file.close()  # its lock goes with it: the next write reaps it
    with Output(target).open() as out:
        out.write("again\n")
    assert target.read_text() == "again\n" and leftovers(tmp_path) == []


def test_temporary_names_of_two_long_names_differ_where_the_names_do(tmp_path):
    from ir_bright import atomic

    first, second = tmp_path / ("a" * 250 + "1"), tmp_path / ("a" * 250 + "2")
    pending = atomic.Pending(first)
    assert atomic.temporary_names(first).fullmatch(pending.path.name)
    assert not atomic.temporary_names(second).fullmatch(pending.path.name)
    pending.discard()


@pytest.mark.parametrize("given", ["newdir/", "newdir//", "runs/newdir/"])
def test_a_path_ending_in_a_slash_names_a_folder_and_is_refused(
    dataset, run_file, tmp_path, capsys, monkeypatch, given
):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(IrBrightError, match="is a folder: give a file name"):
        Output(given)
    status, out, err = evaluate(capsys, run_file, "-o", given)
    assert status == 2 and "is a folder" in err and err.count("\n") == 1
    assert not (tmp_path / given.split("/")[0]).exists()


def sidecar_written(target: Path, text: str) -> None:
    output = Output(target, "the run", sidecar="the run's provenance")
    with output.open(sidecar=lambda facts: json.dumps(facts)) as out:
        out.write(text)


def test_a_sidecar_that_is_a_link_is_replaced_never_written_through(tmp_path):
    """The user named the run, not ``run.json``: a link there (to their notes) is replaced
    by the sidecar, and the notes stay as they were."""
    notes = tmp_path / "users_notes.json"
    notes.write_text('{"mine": true}\n')
    run = tmp_path / "run.trec"
    (tmp_path / "run.trec.json").symlink_to(notes)
    sidecar_written(run, "1 Q0 d 1 1.0 t\n")
    assert notes.read_text() == '{"mine": true}\n'
    sidecar = tmp_path / "run.trec.json"
    assert not sidecar.is_symlink() and json.loads(sidecar.read_text())["name"] == "run.trec"


def test_a_run_provenance_written_beside_a_run_never_writes_through_a_link(dataset, tmp_path):
    from ir_bright.provenance import write_run_provenance

    notes = tmp_path / "users_notes.json"
    notes.write_text("notes\n")
    run = tmp_path / "run.trec"
    run.write_text("1 Q0 d 1 1.0 t\n")
    (tmp_path / "run.trec.json").symlink_to(notes)
    written = write_run_provenance(run, TEST_ID, {"model": "m"}, entities=())
    assert notes.read_text() == "notes\n" and not written.is_symlink()


def test_the_named_output_that_is_a_link_still_has_its_target_written(tmp_path):
    real = tmp_path / "real.trec"
    real.write_text("old\n")
    link = tmp_path / "run.trec"
    link.symlink_to(real)
    sidecar_written(link, "new\n")
    assert link.is_symlink() and real.read_text() == "new\n"
