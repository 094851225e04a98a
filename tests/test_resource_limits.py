"""Errors name the resource that failed: with too few file descriptors (``ulimit -n``) or
processes and threads (``ulimit -u``), the message names that limit, never "cannot write the
run to X" when the output is not the problem, and never advice to delete a good cached file."""

from __future__ import annotations

import errno
import resource

import pytest

from ir_bright.errors import exhausted


@pytest.mark.slow
@pytest.mark.parametrize("open_files", [7, 8, 9, 10, 12])
def test_too_few_file_descriptors_are_named_not_the_output(bright, tmp_path, cli, open_files):
    """At each limit the command either runs or fails naming the limit."""
    run = tmp_path / "run.trec"

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

    proc = cli.fresh("-q", "bm25", "bright/biology", "-o", run, preexec_fn=limit)
    if proc.returncode == 0:
        assert run.read_text().count("\n") == 20
        return
    assert proc.returncode == 2, proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    assert "too many open files" in line.lower() and "ulimit -n" in line, line
    assert "cannot write the run" not in line and "delete" not in line, line
    assert not run.exists()


@pytest.mark.parametrize(
    "error, named",
    [
        (OSError(errno.EMFILE, "Too many open files"), "ulimit -n"),
        (OSError(errno.ENFILE, "Too many open files in system"), "on the machine"),
        (BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable"), "ulimit -u"),
        (RuntimeError("can't start new thread"), "ulimit -u"),
        (MemoryError(), "out of memory"),
        (OSError("IOError: Too many open files. Detail: [errno 24]"), "ulimit -n"),  # Arrow's
    ],
)
def test_an_exhausted_resource_is_named(error, named):
    assert named in exhausted(error)


def test_other_errors_name_no_resource():
    assert exhausted(OSError(errno.ENOSPC, "No space left on device")) is None
    assert exhausted(ValueError("bad")) is None


def test_a_parquet_file_unreadable_for_want_of_descriptors_is_not_called_damaged(tmp_path):
    from ir_bright.store.parquet import _unreadable

    message = _unreadable(tmp_path / "docs.parquet", OSError(errno.EMFILE, "Too many open files"))
    assert "ulimit -n" in message and "delete" not in message


def test_a_write_failing_for_want_of_descriptors_is_not_called_a_write_failure(tmp_path):
    from ir_bright.outputs import Output

    with pytest.raises(OSError, match="Too many open files"):
        with Output(tmp_path / "run.trec", "the run").open():
            raise OSError(errno.EMFILE, "Too many open files")  # the work's, not the output's
