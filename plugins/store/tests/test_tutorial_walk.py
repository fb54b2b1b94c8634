"""The tutorial walk of docs/store.md, command by command, through the real ``tensorweave``
command, on SQLite and on a real PostgreSQL server: train two configs, list and compare
runs, register the best, predict by name, sweep 8 trials with 2 workers, warm start, and
predict with an ensemble.

``WALK`` holds the commands exactly as the tutorial prints them (a test checks each is in
docs/store.md); the test appends ``SMALLER`` overrides (fewer epochs and examples, the
later value of an override wins) so the walk takes minutes, not a quarter of an hour.
Every command runs in the test's own directory with the store at the test's URL.
"""

from __future__ import annotations

import json
import re
import shlex
import time
from pathlib import Path

import numpy as np
import pytest
from twstore_helpers import store_env, tensorweave

pytestmark = pytest.mark.slow

DOC = Path(__file__).resolve().parents[3] / "docs" / "store.md"

WALK = [
    "tensorweave train --run.name=narrow --dims.hidden=32 --train.epochs=5 --run-dir runs/narrow --quiet",
    "tensorweave train --run.name=wide --dims.hidden=256 --train.epochs=5 --run-dir runs/wide --quiet",
    "tensorweave runs list",
    'tensorweave runs list --where "val_accuracy>0.9" --config dims.hidden=256',
    "tensorweave runs compare narrow wide -o compare.png",
    "tensorweave models register wide digits --stage production",
    "tensorweave models list",
    "tensorweave predict digits@production --input digits.npy",
    'tensorweave sweep digits --param "optimizer.learning_rate=loguniform(1e-4,1e-1)" '
    '--param "dims.hidden=choice(16,32,64)" --trials 8 --workers 2 --train.epochs=3',
    "tensorweave train --warm-start digits@production --exclude logits --dims.hidden=256 "
    "--train.epochs=2 --run.name=warm --run-dir runs/warm",
    "tensorweave predict runs/narrow runs/wide runs/warm --input digits.npy "
    "--voter majority_vote.v1",
]

#: what the test adds to the training commands (the later override wins)
SMALLER = ["--train.epochs=2", "--data.limit=400", "--data.workers=0"]


def _doc_commands() -> str:
    """The tutorial's shell lines, continuation lines joined, whitespace normalised."""
    text = DOC.read_text()
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    lines = "\n".join(blocks).replace("\\\n", " ")
    return "\n".join(" ".join(line.split("#", 1)[0].split()) for line in lines.splitlines())


def test_the_tutorial_shows_the_walk_this_test_runs() -> None:
    shown = _doc_commands().splitlines()
    for command in WALK:
        assert " ".join(command.split()) in shown, f"docs/store.md lacks: {command}"


def _run(command: str, env: dict[str, str], cwd: Path, *more: str) -> str:
    args = shlex.split(command)[1:] + list(more)
    proc = tensorweave(args, env, cwd)
    out, err = proc.communicate(timeout=900)
    assert proc.returncode == 0, f"{command}: exit {proc.returncode}\n{out}\n{err}"
    return out


def test_the_tutorial_walk(
    store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    from sklearn.datasets import load_digits

    from tensorweave_store.store import open_store

    started = time.monotonic()
    env = store_env(store_url, tmp_path)
    np.save(tmp_path / "digits.npy", load_digits().data[:8].astype("float32"))
    train_narrow, train_wide, *rest = WALK
    (
        list_all,
        list_where,
        compare,
        register,
        models_list,
        predict,
        sweep,
        warm,
        ensemble,
    ) = rest

    # train two configs (at once: two processes writing to one store)
    procs = [
        tensorweave(shlex.split(c)[1:] + SMALLER, env, tmp_path) for c in (train_narrow, train_wide)
    ]
    for p in procs:
        out, err = p.communicate(timeout=900)
        assert p.returncode == 0, err
    store = open_store(store_url, blobs=env["TENSORWEAVE_STORE_BLOBS"], cached=False)
    runs = {r.name: r for r in store.runs()}
    assert set(runs) == {"narrow", "wide"}
    for name, hidden in (("narrow", 32), ("wide", 256)):
        run = runs[name]
        assert (run.status, run.epochs_done, run.config["dims"]["hidden"]) == (
            "finished",
            2,
            hidden,
        )
        assert run.run_dir == str(tmp_path / "runs" / name)
        log = (tmp_path / "runs" / name / "log.csv").read_text().splitlines()
        losses = [float(row.split(",")[log[0].split(",").index("loss")]) for row in log[1:]]
        assert [v for _, v in store.metrics(run.id)["loss"]] == pytest.approx(losses, rel=1e-5)
        assert "checkpoints" in " ".join(store.artifacts(run.id))

    # list and compare
    out = _run(list_all, env, tmp_path)
    assert "narrow" in out and "wide" in out and "val_accuracy" in out
    out = _run(list_where, env, tmp_path)
    if runs["wide"].figures["val_accuracy"] > 0.9:
        assert "wide" in out and "narrow" not in out
    else:
        assert "no runs match" in out
    out = _run(compare, env, tmp_path)
    assert "dims.hidden" in out and "val_accuracy by epoch" in out
    assert (tmp_path / "compare.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # register the best, predict by name
    out = _run(register, env, tmp_path)
    assert "registered digits@1" in out and "stage production" in out
    assert "production=1" in _run(models_list, env, tmp_path)
    by_name = json.loads(_run(predict, env, tmp_path))
    assert len(by_name) == 8 and all(0 <= c <= 9 for c in by_name)

    # sweep: 8 trials, 2 workers
    out = _run(sweep, env, tmp_path, *SMALLER)
    assert re.search(r"8 trials: \d+ complete", out), out
    assert {m for m in re.findall(r"\[(w[12])@", out)} == {"w1", "w2"}
    trial_runs = [r for r in store.runs() if any(t.startswith("sweep:") for t in r.tags)]
    assert len(trial_runs) == 8 and all(r.status == "finished" for r in trial_runs)

    # warm start from the registered model
    out = _run(warm, env, tmp_path, *SMALLER)
    assert "warm start from digits@production" in out and "4 loaded, 2 skipped" in out
    (warm_run,) = store.runs(name="warm")
    assert warm_run.status == "finished"
    warm_cfg = json.loads((tmp_path / "runs" / "warm" / "config.json").read_text())
    assert any(cb.get("source") == "digits@production" for cb in warm_cfg["callbacks"])

    # an ensemble of the two runs and the warm-started one
    votes = json.loads(_run(ensemble, env, tmp_path))
    assert len(votes) == 8 and all(0 <= c <= 9 for c in votes)

    # the same store from this process: a run in full, predict by directory = by name,
    # a missing version is a named error with the fix
    for key in ("TENSORWEAVE_STORE", "TENSORWEAVE_STORE_BLOBS", "TENSORWEAVE_STORE_CACHE"):
        monkeypatch.setenv(key, env[key])
    monkeypatch.chdir(tmp_path)
    from tensorweave.cli import main

    capsys.readouterr()
    assert main(["runs", "show", "wide"]) == 0
    assert "layers:FC.v1 from tensorweave-layers" in capsys.readouterr().out
    assert main(["predict", "runs/wide", "--input", "digits.npy"]) == 0
    assert json.loads(capsys.readouterr().out) == by_name
    assert main(["predict", "digits@7", "--input", "digits.npy"]) == 1
    err = capsys.readouterr().err
    assert "no version '7'" in err and "Fix:" in err
    store.close()
    print(f"walk on {store_url.split(':')[0]}: {time.monotonic() - started:.0f} s")
