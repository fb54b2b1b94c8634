"""Secrets: a store URL's password is never shown (errors, logs, ``runs show``, sweep output)
nor stored (the database, configs on disk, a sweep's study), nor put on a command line.

Written as the attack: real ``tensorweave`` processes, the real PostgreSQL server of the
store tests (it trusts local connections, so any password works and must never show), a
closed port, a real sweep whose workers' command lines are read from ``/proc``.
"""

from __future__ import annotations

import json
import os
import socket
import time
import traceback
from pathlib import Path

import pytest
import sqlalchemy as sa
from twstore_helpers import SWEEP_TINY, digits_args, store_env, tensorweave

import tensorweave as tw
from tensorweave_store.db.engine import connect, split_secrets
from tensorweave_store.db.urls import redact
from tensorweave_store.errors import StoreUnreachableError
from tensorweave_store.store import open_store

PW = "S3cretPw-7f2a"  # the secret no output may hold


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again once the socket is


def _forms(host: str) -> dict[str, str]:
    """Every way a password rides in a URL (``host``: ``HOST:PORT``)."""
    return {
        "user:password@": f"postgresql+psycopg://bob:{PW}@{host}/db",
        ":password@": f"postgresql+psycopg://:{PW}@{host}/db",
        "?password=": f"postgresql+psycopg://bob@{host}/db?password={PW}",
        "&password=": f"postgresql+psycopg://bob@{host}/db?sslmode=disable&password={PW}",
        "?sslpassword=": f"postgresql+psycopg://bob@{host}/db?sslpassword={PW}",
        "password with @": f"postgresql+psycopg://bob:a@{PW}@{host}/db",
    }


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("postgresql://bob:pw@h/db", "postgresql://bob:***@h/db"),
        ("postgresql://:pw@h/db", "postgresql://:***@h/db"),
        ("postgresql://bob@h/db?password=pw", "postgresql://bob@h/db?password=***"),
        ("postgresql://h/db?a=1&PWD=pw&b=2", "postgresql://h/db?a=1&PWD=***&b=2"),
        ("x?passwd=pw;token=t", "x?passwd=***;token=***"),
        ("host=h password=pw sslpassword=k", "host=h password=*** sslpassword=***"),
        ("PGPASSWORD=pw tensorweave", "PGPASSWORD=*** tensorweave"),
        ("mysql://u:p@w@h/db", "mysql://u:***@h/db"),
        ("secret = pw", "secret = ***"),
        ("postgresql://bob@h/db", "postgresql://bob@h/db"),
        ("sqlite:////tmp/a:b@c/x.db", "sqlite:////tmp/a:b@c/x.db"),
        ("the password is wrong", "the password is wrong"),
    ],
)
def test_redact_hides_every_form(text: str, shown: str) -> None:
    assert redact(text) == shown


@pytest.mark.parametrize("form", list(_forms("h:1")))
def test_a_closed_port_names_the_store_not_its_password(form: str) -> None:
    url = _forms(f"127.0.0.1:{_closed_port()}")[form]
    with pytest.raises(StoreUnreachableError) as info:
        open_store(url, cached=False)
    shown = "".join(traceback.format_exception(info.value))  # the chained causes too
    assert PW not in shown
    if form == "password with @":  # ambiguous: the driver would take part of it for the host
        assert "unescaped '@'" in shown and "%40" in shown
    else:
        assert "cannot reach the store postgresql+psycopg://" in shown and "***" in shown


@pytest.mark.parametrize("form", ["user:password@", ":password@", "?password="])
def test_the_command_line_error_holds_no_password(form: str, tmp_path: Path) -> None:
    url = _forms(f"127.0.0.1:{_closed_port()}")[form]
    for args in (["runs", "list", "--store", url, "--traceback"], ["models", "list"]):
        env = store_env(url, tmp_path)
        out, err = tensorweave(args, env, tmp_path).communicate(timeout=300)
        assert PW not in out + err, (args, out, err)
        assert "cannot reach the store" in err and "***" in err


def test_a_bad_url_and_a_bad_sqlite_path_hold_no_password(tmp_path: Path) -> None:
    with pytest.raises(StoreUnreachableError) as info:
        connect(f"postgresql+psycopg://bob:{PW}@[::1/db")  # does not parse
    assert PW not in "".join(traceback.format_exception(info.value))
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(StoreUnreachableError, match="cannot create the directory") as info:
        connect(f"sqlite:///{blocker}/sub/store.db")
    assert str(blocker) in str(info.value)
    with pytest.raises(StoreUnreachableError) as info:
        connect(f"postgresql+psycopg://bob:{PW}@127.0.0.1:99999999/db")
    assert PW not in "".join(traceback.format_exception(info.value))


def test_a_config_cannot_hold_a_store_password(tmp_path: Path) -> None:
    """A config's ``store`` (``RecordRun.v1``, ``store.v1``) is written to disk: one with a
    password is refused, its message masking it."""
    from tensorweave_store.datasets.versions import store_dataset
    from tensorweave_store.runs.callback import RecordRun

    url = f"postgresql+psycopg://bob:{PW}@127.0.0.1:{_closed_port()}/db"
    for make in (lambda: RecordRun(store=url), lambda: store_dataset("d@1", store=url)):
        with pytest.raises(tw.TensorweaveError, match="holds a password") as info:
            make()
        assert PW not in str(info.value)
    assert RecordRun(store=f"sqlite:///{tmp_path}/s.db").store_url


def _with_password(pg_url: str, form: str) -> str:
    url = sa.make_url(pg_url)
    if form == "?password=":
        url = url.set(password=None).update_query_dict({"password": PW})
    else:
        url = url.set(password=PW)
    return url.render_as_string(hide_password=False)


@pytest.mark.parametrize("form", ["user:password@", "?password="])
def test_an_open_store_shows_no_password(pg_url: str, form: str) -> None:
    url = _with_password(pg_url, form)
    assert PW in url
    store = open_store(url, cached=False)
    try:
        shown = [repr(store), store.display_url, repr(store.engine), repr(store.engine.url)]
        shown.append(str(store.engine.url))
        assert not [s for s in shown if PW in s], shown
        bare, secrets = split_secrets(url)
        assert secrets["password"] == PW and PW not in bare  # it reaches the driver that way
        assert store.engine.url.password is None
    finally:
        store.close()


def test_runs_show_and_the_run_directory_hold_no_password(pg_url: str, tmp_path: Path) -> None:
    """A job recording into a password-bearing store (``--store``), then ``runs show``: the
    password is in neither output, nor any file of the run, nor the database."""
    url = _with_password(pg_url, "user:password@")
    env = store_env(None, tmp_path)
    run_dir = tmp_path / "runs" / "job"
    args = [*digits_args("job", run_dir, "--train.epochs=1"), "--store", url]
    proc = tensorweave(args, env, tmp_path)
    out, err = proc.communicate(timeout=900)
    assert proc.returncode == 0, err
    shown = tensorweave(["runs", "show", "job", "--store", url], env, tmp_path)
    sout, serr = shown.communicate(timeout=300)
    assert shown.returncode == 0, serr
    assert "run 1: job" in sout
    assert PW not in out + err + sout + serr
    on_disk = [p for p in run_dir.rglob("*") if p.is_file() and PW.encode() in p.read_bytes()]
    assert on_disk == []
    assert _rows_holding(url, PW) == []


def _rows_holding(url: str, text: str) -> list[str]:
    """Every table row of the database at ``url`` whose text holds ``text``."""
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    found = []
    try:
        with engine.connect() as conn:
            for table in sa.inspect(conn).get_table_names():
                for row in conn.execute(sa.text(f'SELECT * FROM "{table}"')):
                    if text in json.dumps([str(v) for v in row]):
                        found.append(f"{table}: {row}")
    finally:
        engine.dispose()
    return found


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


@pytest.mark.slow
def test_a_sweep_keeps_the_password_off_command_lines_and_out_of_the_study(
    pg_url: str, tmp_path: Path
) -> None:
    """A real sweep with 2 workers on a password-bearing URL (``TENSORWEAVE_STORE``): every
    worker's /proc/PID/cmdline, read while it runs, lacks the password; so do the sweep's
    output, the study's attributes and every other row of the database."""
    url = _with_password(pg_url, "?password=")
    args = ["sweep", "--param", "optimizer.learning_rate=choice(0.01,0.05)", "--trials", "2"]
    args += ["--workers", "2", "--study", "secret-sweep", "--heartbeat", "2", *SWEEP_TINY]
    proc = tensorweave(args, store_env(url, tmp_path), tmp_path)
    seen: dict[int, bytes] = {}
    deadline = time.monotonic() + 900
    while proc.poll() is None and time.monotonic() < deadline:
        for pid in _children(proc.pid):
            try:
                line = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if line:  # empty once the worker has exited (a zombie)
                seen[pid] = line
        time.sleep(0.2)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    workers = {p: c for p, c in seen.items() if b"tensorweave_store.sweeps.workers" in c}
    assert len(workers) == 2, seen
    assert not [c for c in seen.values() if PW.encode() in c]
    assert PW not in out + err and "***" in out  # the storage line, redacted
    assert _rows_holding(url, PW) == []
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    with engine.connect() as conn:
        attrs = conn.execute(sa.text("SELECT value_json FROM study_user_attributes")).all()
    engine.dispose()
    spec = next(json.loads(v) for (v,) in attrs if '"params"' in v)
    assert spec["store"] is None and spec["params"]
    assert os.stat(tmp_path).st_mode  # the runs stayed under the test's folder
