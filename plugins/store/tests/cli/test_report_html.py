"""``compare_runs``: ``tensorweave runs compare`` in Python, as a notebook shows it (HTML
tables and the curves), and ``runs compare -o`` drawing without pyplot."""

from __future__ import annotations

from tensorweave_store.cli.report import compare_runs, plot_compare


def two_runs(store, tmp_path):
    refs = []
    for hidden, losses in ((16, [0.9, 0.7]), (64, [0.8, 0.4])):
        config = {"dims": {"hidden": hidden}, "train": {"epochs": 2}, "@versions": {"tf": "x"}}
        run = store.start_run(config, run_dir=tmp_path / f"h{hidden}", name=f"h{hidden}")
        for epoch, loss in enumerate(losses):
            run.log_epoch(epoch, {"loss": loss, "val_loss": loss + 0.1})
        run.finish("finished", summary={"valid": {"loss": losses[-1] + 0.1}})
        refs.append(f"h{hidden}")
    return refs


def test_compare_runs_renders_tables_and_curves(store, tmp_path):
    comparison = compare_runs(*two_runs(store, tmp_path), store=store)
    html = comparison._repr_html_()
    assert "<td>dims.hidden</td><td>16</td><td>64</td>" in html  # the config difference
    assert "train.epochs" not in html and "@versions" not in html  # only what differs
    assert "run 1 (h16)" in html and "<td>val_loss</td>" in html  # the final figures
    assert html.count("<svg") == 1 and "h64" in html.split("<svg", 1)[1]  # the curves
    assert str(comparison).startswith("config differences:")  # the command's text


def test_runs_compare_plot_draws_a_file(store, tmp_path):
    refs = two_runs(store, tmp_path)
    runs = [store.run(r) for r in refs]
    out = plot_compare(runs, [store.metrics(r.id) for r in runs], tmp_path / "curves.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 5000
