"""Opening a store: migrations from an older schema, a newer schema, an unreachable URL."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic import command

from tensorweave_store.db.engine import VERSION_TABLE, _alembic_config, connect, migrate, revision
from tensorweave_store.db.schema import HEAD
from tensorweave_store.errors import SchemaTooNewError, StoreUnreachableError
from tensorweave_store.store import open_store


def test_a_fresh_store_is_at_the_head(store_url):
    engine = connect(store_url)
    assert revision(engine) == HEAD
    assert {"tw_runs", "tw_model_versions", "tw_datasets", VERSION_TABLE} <= set(
        sa.inspect(engine).get_table_names()
    )
    engine.dispose()


def test_a_store_of_the_previous_schema_opens_with_this_one_and_keeps_its_runs(store_url, tmp_path):
    engine = sa.create_engine(store_url)
    with engine.begin() as conn:  # the store as revision 0001 made it
        command.upgrade(_alembic_config(conn), "0001")
    assert revision(engine) == "0001"
    assert "tw_datasets" not in sa.inspect(engine).get_table_names()
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO tw_runs (name, kind, status, config, providers, versions, "
                "epochs_done, created_at, heartbeat_at) VALUES ('old', 'train', 'finished', "
                "'{}', '{}', '{}', 3, :t, :t)"
            ),
            {"t": "2026-01-01 00:00:00"},
        )
    engine.dispose()
    store = open_store(store_url, blobs=str(tmp_path / "b"), cached=False)
    assert revision(store.engine) == HEAD
    assert [(r.name, r.epochs_done, r.status) for r in store.runs()] == [("old", 3, "finished")]
    store.close()


def test_a_store_from_a_newer_schema_is_refused_untouched(store_url, tmp_path):
    store = open_store(store_url, blobs=str(tmp_path / "b"), cached=False)
    run = store.start_run({"run": {"name": "kept"}}, heartbeat=False)
    run.finish("finished")
    with store.engine.begin() as conn:
        conn.execute(sa.text(f"UPDATE {VERSION_TABLE} SET version_num = '9999'"))
    store.close()
    with pytest.raises(SchemaTooNewError, match="newer than this tensorweave-store") as err:
        open_store(store_url, cached=False)
    assert "pip install -U tensorweave-store" in str(err.value)
    engine = sa.create_engine(store_url)
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT name FROM tw_runs")).scalars().all() == ["kept"]
        assert conn.execute(sa.text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar() == "9999"
    engine.dispose()


def test_migrating_twice_is_a_no_op(store_url):
    engine = connect(store_url)
    assert migrate(engine) == HEAD
    assert revision(engine) == HEAD
    engine.dispose()


def test_an_unreachable_postgresql_server_gets_a_named_error(unused_port):
    url = f"postgresql+psycopg://nobody@127.0.0.1:{unused_port}/nothing?connect_timeout=3"
    with pytest.raises(StoreUnreachableError, match="cannot reach the store") as err:
        open_store(url, cached=False)
    assert "Fix:" in str(err.value) and "TENSORWEAVE_STORE" in str(err.value)


def test_a_password_never_shows_in_the_error(unused_port):
    url = f"postgresql+psycopg://bob:hunter2@127.0.0.1:{unused_port}/x?connect_timeout=3"
    with pytest.raises(StoreUnreachableError) as err:
        open_store(url, cached=False)
    assert "hunter2" not in str(err.value)


def test_an_unwritable_sqlite_path_and_a_bad_url_get_named_errors(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(StoreUnreachableError, match="writable path"):
        open_store(f"sqlite:///{blocker}/sub/store.db", cached=False)
    with pytest.raises(StoreUnreachableError, match="cannot use the store URL"):
        open_store("nosuchdb://x/y", cached=False)


@pytest.fixture
def unused_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _damaged_store(tmp_path, how: str):
    """A real store file (two runs recorded), then damaged: its header overwritten, or the
    pages after the first one overwritten with garbage."""
    path = tmp_path / "damaged.db"
    store = open_store(f"sqlite:///{path}", blobs=str(tmp_path / "b"), cached=False)
    for name in ("a", "b"):
        store.start_run({"run": {"name": name}}, heartbeat=False).finish("finished")
    store.close()  # the last connection folds the WAL into the file
    data = bytearray(path.read_bytes())
    if how == "header":
        data[:16] = b"not a database!\0"
    else:
        page = int.from_bytes(data[16:18], "big")
        data[page:] = bytes((i * 7 + 3) % 256 for i in range(len(data) - page))
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("how", ["header", "pages"])
def test_a_damaged_sqlite_file_is_named_with_the_fix_and_left_untouched(tmp_path, how, capsys):
    from tensorweave.cli import main as cli_main

    path = _damaged_store(tmp_path, how)
    before = path.read_bytes()
    with pytest.raises(StoreUnreachableError) as err:
        open_store(f"sqlite:///{path}", cached=False).runs()
    message = str(err.value)
    assert f"the store file {path} is damaged or not a store" in message
    assert f"Fix: move it aside (mv {path} {path}.damaged)" in message
    assert cli_main(["runs", "list", "--store", f"sqlite:///{path}"]) == 1
    stderr = capsys.readouterr().err
    assert stderr.startswith("error: the store file") and "sqlalche.me" not in stderr
    assert path.read_bytes() == before  # byte-identical
