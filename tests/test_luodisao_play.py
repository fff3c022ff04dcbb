"""祁阳落地扫 in play: golden replay, conformance, determinism, exact 天胡, rule referee.

- The golden replay (``tests/golden/luodisao.txt``, ``pytest --regen`` rewrites it).
- Conformance (engine.testing.check_variant -> engine.zipai.testing) for every policy
  and player count, the winning hands re-checked by the brute-force twin.
- Determinism: the same seed gives byte-identical records with 1 and 2 threads and
  any chunking.
- Exact P(天胡) (subset-construction programme) against the hand evaluator and the
  simulation.
- An independent referee replays the kernel's event log and checks each step against
  RULEBOOK §4.3-4.4 (forced 倾 / 啸 / 跑, the discard rules after 4-card groups, 过张,
  臭啸, 冲明跑, 王 holders).
- Stacked decks (engine.zipai.scenario) for the situations a random deal rarely shows.
"""

from pathlib import Path

import pytest

from engine.variants import get
from engine.zipai.replay import replay

V = get("luodisao")
GOLDEN = Path(__file__).parent / "golden" / "luodisao.txt"


# --- the golden replay ------------------------------------------------------------------------


def test_golden_replay(regen):
    """`mjlab replay luodisao --seed 2 --match 0` pinned line by line (--regen rewrites)."""
    text = replay("luodisao", 2, 0, 0) + "\n"
    if regen or not GOLDEN.exists():
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_replay_reads_like_the_rules():
    text = replay("luodisao", 2, 0, 0)
    for needle in ("dealer: seat", "turns up", "碰s", "跑s", "倾", "wins", "醒", "囤", "payments"):
        assert needle in text
    with pytest.raises(Exception, match="--deal"):
        replay("luodisao", 2, 0, 99)
