"""``tensorweave augment-preview``: the command this pack adds through its hook."""

from tensorweave.cli import main
from tensorweave.testing import check_light_modules


def test_preview_shows_the_batch_before_and_after(capsys):
    assert (
        main(["augment-preview", "AugmentScale.v1", "--option", "low=2.0", "--option", "high=2.0"])
        == 0
    )
    out = capsys.readouterr().out
    assert "AugmentScale.v1 (low=2.0, high=2.0) on a 3x4 batch, seed 0: mean |change|" in out
    assert "  before  0.00  0.08  0.17  0.25" in out and "  after   0.00  0.17  0.33  0.50" in out


def test_an_unknown_augmenter_exits_3_and_a_bad_option_2(capsys):
    assert main(["augment-preview", "AugmentJiter.v1"]) == 3
    assert "Close matches: AugmentJitter.v1" in capsys.readouterr().err
    assert main(["augment-preview", "AugmentJitter.v1", "--option", "stdev=1"]) == 2
    assert "Did you mean 'stddev'" in capsys.readouterr().err


def test_the_hook_module_and_the_kind_declaration_stay_light():
    check_light_modules(
        "tensorweave_augment",
        [
            "tensorweave_augment.hooks",
            "tensorweave_augment.kinds",
            "tensorweave_augment.counterparts",
        ],
    )
