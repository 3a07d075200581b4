"""Token swap with a real learned table (a checkpoint's or the Lab's) in place of the seeded one."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from checkpoint_files import gpt2_folder, helix

from explorer import jobs
from explorer import schemes as registry
from explorer.encodings.errors import EncodingError
from explorer.encodings.table_stats import fit_width
from explorer.jobs.swap import SwapRequest, embed, forward
from explorer.jobs.table import TableSource
from explorer.state import SwapState

TABLED = [s for s in registry.swap_ids() if registry.get(s).uses_table]


def test_fit_width():
    P = helix(40, 16)
    np.testing.assert_array_equal(fit_width(P, 5, 16), P[:5])
    small = fit_width(P, 5, 4)
    _, _, vt = np.linalg.svd(P - P.mean(axis=0), full_matrices=False)
    np.testing.assert_allclose(small, P[:5] @ vt[:4].T)
    wide = fit_width(P, 5, 20)
    assert wide.shape == (5, 20) and np.all(wide[:, 16:] == 0)
    with pytest.raises(EncodingError, match="position 40 has no row"):
        fit_width(P, 41, 16)


def test_the_job_adds_the_real_rows():
    assert TABLED, "some swap scheme takes a real table"
    P = helix(64, 16)
    st = SwapState(sentence="the dog bit the man", scheme=TABLED[0], d_model=16, alpha=1.0)
    r = jobs.run(SwapRequest(st, table=TableSource.from_array(P, "Lab: test table")))
    np.testing.assert_allclose(r.before.outputs, forward(st.tokens, st, P).outputs)
    plain = jobs.run(SwapRequest(st))
    assert not np.allclose(r.before.outputs, plain.before.outputs)
    assert "Lab: test table" in r.explanation and "seeded" not in r.explanation
    # A scheme without a table ignores it.
    other = next(s for s in registry.swap_ids() if not registry.get(s).uses_table)
    st2 = dataclasses.replace(st, scheme=other)
    np.testing.assert_array_equal(jobs.run(SwapRequest(st2, table=TableSource.from_array(P, "x"))).before.outputs,
                                  jobs.run(SwapRequest(st2)).before.outputs)
    assert embed(st.tokens, 16).shape == (5, 16)


def test_a_table_too_short_for_the_sentence_is_one_line():
    st = SwapState(sentence="a b c d e f", swap_i=0, swap_j=1, scheme=TABLED[0], d_model=16)
    with pytest.raises(EncodingError, match="position 5 has no row"):
        jobs.run(SwapRequest(st, table=TableSource.from_array(helix(4, 16), "short")))


def test_the_swap_panel_follows_the_opened_checkpoint(qtbot, main_window, tmp_path):
    swap = main_window.panels["swap"]
    assert not swap.table_check.isEnabled()
    main_window.panel_docks.open_checkpoint(str(gpt2_folder(tmp_path / "gpt2", 64, 16)))
    table = main_window.panels["table"]
    qtbot.waitUntil(lambda: table.info is not None and table.info.kind == "file" and not table.waiting,
                    timeout=30000)
    assert swap.table_check.isEnabled()
    swap.set_state(dataclasses.replace(swap.state, scheme=TABLED[0]))
    swap.table_check.setChecked(True)
    qtbot.waitUntil(lambda: swap.last_drawn_request is not None and swap.last_drawn_request.table is not None
                    and not swap.waiting, timeout=30000)
    assert swap.last_drawn_request.table.path == table.source().path
    table.close_checkpoint()
    qtbot.waitUntil(lambda: not swap.table_check.isEnabled() and swap.last_drawn_request.table is None
                    and not swap.waiting, timeout=30000)
