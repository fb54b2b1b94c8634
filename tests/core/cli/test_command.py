"""``tensorweave.cli.command``: exit codes and ``--traceback`` for every kind of error."""

import tensorweave as tw
from tensorweave.cli.command import EXIT_COMPONENT, EXIT_FAIL, run_guarded


def _plugin_import() -> None:
    raise RuntimeError("acme: boom at import")


def _lookup(argv: list[str]) -> int:
    try:
        _plugin_import()
    except RuntimeError as cause:
        raise tw.RegistryError("layer 'Acme.v1' failed to load") from cause
    return 0


def test_a_component_error_exits_3_with_one_line(capsys):
    assert run_guarded(_lookup, []) == EXIT_COMPONENT
    err = capsys.readouterr().err
    assert err == "error: layer 'Acme.v1' failed to load\n"


def test_traceback_shows_the_plugins_own_frames_for_a_component_error(capsys):
    assert run_guarded(_lookup, ["--traceback"]) == EXIT_COMPONENT
    err = capsys.readouterr().err
    assert "in _plugin_import" in err and "RuntimeError: acme: boom at import" in err
    assert err.rstrip().endswith("error: layer 'Acme.v1' failed to load")


def test_an_unexpected_error_exits_1_and_points_at_traceback(capsys):
    def fails(argv: list[str]) -> int:
        raise OSError("disk full")

    assert run_guarded(fails, []) == EXIT_FAIL
    err = capsys.readouterr().err
    assert "error: OSError: disk full" in err and "--traceback" in err
