"""Write the structured-data example's CSV: patients with numeric columns, a string column
and a 0/1 target (synthetic, seeded; no download), as Keras's heart-disease example has.

    python examples/structured_data/make_data.py data/patients.csv [ROWS]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

THAL = ("normal", "fixed", "reversible")


def write(path: str | Path, rows: int = 2000, seed: int = 0) -> Path:
    """``rows`` patients: age, sex, cholesterol, max heart rate, thal (a string) and target."""
    rng = np.random.default_rng(seed)
    age = rng.normal(54, 9, rows).round()
    sex = rng.integers(0, 2, rows)
    chol = rng.normal(245, 50, rows).round()
    thalach = rng.normal(150, 22, rows).round()
    thal = rng.choice(THAL, rows, p=[0.55, 0.1, 0.35])
    score = (
        0.05 * (age - 54) + 0.6 * sex + 0.01 * (chol - 245) - 0.04 * (thalach - 150)
        + np.select([thal == "reversible", thal == "fixed"], [1.8, 0.8], 0.0) - 0.9
    )  # fmt: skip
    target = (score + rng.logistic(0, 0.5, rows) > 0).astype(int)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    lines = ["age,sex,chol,thalach,thal,target"]
    lines += [
        f"{a:.0f},{s},{c:.0f},{h:.0f},{t},{y}"
        for a, s, c, h, t, y in zip(age, sex, chol, thalach, thal, target, strict=True)
    ]
    out.write_text("\n".join(lines) + "\n")
    return out


if __name__ == "__main__":
    where = write(sys.argv[1] if len(sys.argv) > 1 else "data/patients.csv",
                  int(sys.argv[2]) if len(sys.argv) > 2 else 2000)  # fmt: skip
    print(f"wrote {where}")
