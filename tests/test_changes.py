"""Change points: properties of the rule, values worked by hand, the history page in a browser."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import lxml.html
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.analysis.changes import MAD_SCALE, ChangeRule, change_points
from tests.helpers import SAMPLE, run
from tests.test_report_browser import PHONE, TIMEOUT, chromium_args, find_browser, load_on_phone

levels = st.floats(min_value=1e-9, max_value=1e3, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(
    level=levels,
    before=st.integers(min_value=4, max_value=40),
    after=st.integers(min_value=3, max_value=40),
    factor=st.sampled_from([0.5, 0.8, 1.1, 1.25, 2.0, 10.0]),
)
def test_one_clean_step_is_found_once_at_its_run(
    level: float, before: int, after: int, factor: float
) -> None:
    x = np.r_[np.full(before, level), np.full(after, level * factor)]
    (c,) = change_points(x)
    assert c.index == before
    assert c.direction == ("up" if factor > 1 else "down")
    assert c.step == pytest.approx(factor - 1)


@settings(max_examples=200, deadline=None)
@given(
    level=levels,
    n=st.integers(min_value=0, max_value=60),
    at=st.integers(min_value=0, max_value=59),
    spike=st.floats(min_value=0.01, max_value=100),
)
def test_a_single_outlier_or_a_flat_series_is_no_change(
    level: float, n: int, at: int, spike: float
) -> None:
    x = np.full(n, level)
    if n:
        x[at % n] = level * spike
    assert change_points(x) == []


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**31), noise=st.floats(0.0, 0.01))
def test_noise_under_the_smallest_step_is_no_change(seed: int, noise: float) -> None:
    rng = np.random.default_rng(seed)
    x = 1.0 + rng.uniform(-noise, noise, 200)
    assert change_points(x) == []


def test_missing_runs_are_skipped_and_indices_kept() -> None:
    x = np.r_[np.ones(6), np.nan, np.ones(2), [2.0, np.nan, 2.0, 2.0]]
    (c,) = change_points(x)
    assert c.index == 9 and c.baseline_runs == 8


def test_threshold_by_hand() -> None:
    # Baseline 1.00, 1.02, 0.98, 1.01, 0.99: median 1.00, MAD 0.01, so the
    # threshold is max(4 x 1.4826 x 0.01, 5% x 1.00) = 0.0593.
    base = [1.00, 1.02, 0.98, 1.01, 0.99]
    (c,) = change_points([*base, 1.07, 1.07, 1.07])
    assert c.threshold == pytest.approx(4 * MAD_SCALE * 0.01)
    assert c.before == pytest.approx(1.0) and c.after == pytest.approx(1.07)
    # A step of 0.055 passes 5% but not 4 noise deviations.
    assert change_points([*base, 1.055, 1.055, 1.055]) == []
    # Not sustained: the third run falls back.
    assert change_points([*base, 1.07, 1.07, 1.0]) == []
    # A looser rule takes the small step.
    assert len(change_points([*base, 1.055] * 1 + [1.055, 1.055], ChangeRule(noise=2.0))) == 1


def test_two_steps_are_two_changes() -> None:
    x = np.r_[np.ones(10), np.full(10, 1.5), np.full(10, 1.0)]
    assert [(c.index, c.direction) for c in change_points(x)] == [(10, "up"), (20, "down")]


def test_bad_rules_are_refused() -> None:
    for bad in ({"window": 1}, {"sustain": 0}, {"min_baseline": 9}, {"noise": -1.0}):
        with pytest.raises(ValueError):
            ChangeRule(**bad)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def history_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("history-page")
    dataset = work / "ds"
    for commit in ("a", "b", "c", "d", "e"):
        proc = run("export", str(SAMPLE), "--to", str(dataset), "--tag", f"commit={commit}")
        assert proc.returncode == 0, proc.stderr
    page = work / "history.html"
    proc = run("history", str(dataset), "-o", str(page))
    assert proc.returncode == 0, proc.stderr
    return page


def test_history_page_draws_every_group_in_a_browser(history_page: Path, tmp_path: Path) -> None:
    pytest.importorskip("duckdb")
    browser = find_browser()
    if browser is None:
        pytest.skip("no headless browser found")
    profile = Path(tempfile.mkdtemp(prefix="chromium-", dir=tmp_path))
    proc = subprocess.run(
        [*chromium_args(browser, profile), "--dump-dom", history_page.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    doc = lxml.html.document_fromstring(proc.stdout)
    body = dict(doc.body.attrib)
    assert body.get("data-ready") == "1" and body.get("data-errors") == "", body
    # 13 kernel groups x 5 runs, one line each, on each of the three charts.
    traces = doc.xpath(
        "//div[contains(@class, 'chart')]//g[contains(@class, 'scatterlayer')]"
        "/g[contains(@class, 'trace')]"
    )
    assert len(traces) == 3 * 13
    assert len(doc.xpath("//table[@id='kernel-table']/tbody/tr")) == 13
    phone = load_on_phone(browser, history_page, tmp_path)
    assert int(phone["data-scroll-width"]) <= PHONE[0], phone
