"""What people read of an environment record: the pip lock and the differences."""

from __future__ import annotations

from packaging.requirements import Requirement

from tensorweave_train.runs.environment_report import differences, lock_text


def test_the_lock_pins_versions_and_names_what_cannot_be_locked() -> None:
    record = {
        "distributions": [
            {"name": "numpy", "version": "2.0.0", "pack": False, "sha256": "ab" * 32},
            {"name": "tensorweave-layers", "version": "0.1.0", "pack": True, "editable": "/src"},
            {"name": "tqdm", "version": "4.0.0", "pack": False},
        ]
    }
    text = lock_text(record)
    active = [line.split("#")[0].strip() for line in text.splitlines()]
    reqs = [Requirement(line) for line in active if line]
    assert [str(r) for r in reqs] == ["numpy==2.0.0", "tqdm==4.0.0"]
    assert "# tensorweave-layers==0.1.0: an editable install from /src" in text
    assert "sha256:" + "ab" * 32 in text and "--hash" not in text  # not on every line
    record["distributions"] = record["distributions"][:1]
    assert f"numpy==2.0.0 --hash=sha256:{'ab' * 32}" in lock_text(record)


def test_differences_name_packs_and_the_system() -> None:
    a = {"python": "3.11.7", "distributions": [{"name": "p", "version": "0.1", "pack": True}]}
    b = {"python": "3.12.0", "distributions": [{"name": "p", "version": "0.2", "pack": True}]}
    assert differences(a, b) == [
        ("system", "python", "3.11.7", "3.12.0"),
        ("pack", "p", "0.1", "0.2"),
    ]
