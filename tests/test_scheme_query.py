"""What a scheme's hooks may read: a typed query of exactly the fields the scheme declares.

A field a scheme forgets in ``depends_on`` must fail loudly (naming it), not arrive as the request's default;
and a Copy-as-Python snippet is not inherited by a subclass that changes the computation it writes out.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from explorer import schemes as registry
from explorer.encodings.blocks import blocks
from explorer.jobs.grid import GridRequest, grid, grid_ids
from explorer.jobs.schemes import (
    BeyondRequest,
    DistanceRequest,
    MatrixRequest,
    PropertiesRequest,
    beyond,
    build_requests,
    distance_scores,
    matrix_scores,
    properties,
)
from explorer.schemes.alibi import ALiBi
from explorer.schemes.base import Scheme
from explorer.schemes.query import FIELD_TYPES, Query, UndeclaredField
from explorer.schemes.sinusoidal import Sinusoidal
from explorer.snippets import NoSnippet
from explorer.state import SchemesState
from tests.test_scheme_registry import Decay


class Forgetful(Decay):
    """Reads the causal mask but declares only its parameter: the mistake the query must catch."""

    id = "throwaway_forgetful"
    title = "Forgetful"
    colour = "#223344"
    depends_on = ("params",)


@pytest.fixture
def forgetful():
    scheme = registry.register(Forgetful())
    try:
        yield scheme
    finally:
        registry.unregister(scheme.id)


def test_a_hook_reading_a_field_its_scheme_did_not_declare_fails_and_names_it(forgetful):
    with pytest.raises(UndeclaredField, match=r"'throwaway_forgetful' read 'causal'.*declared: l_eval, params"):
        matrix_scores(MatrixRequest(scheme=forgetful.id, l_eval=64, params=(("lam", 0.5),)))
    # Declared, the same hook runs: the failure above is the missing declaration, nothing else.
    declared = Decay()
    m = declared.score_blocks(declared.query(MatrixRequest(scheme=forgetful.id, l_eval=64, causal=False,
                                                           params=(("lam", 0.5),)), "matrices"),
                              blocks(64, 16))
    assert np.isfinite(m).all()


def test_the_panel_sends_only_the_declared_fields_and_the_hooks_get_only_those(forgetful):
    st = SchemesState().clamped(**{"show_throwaway_forgetful": True, "causal": False})
    req = next(r for r in build_requests(st, "matrices") if r.scheme == forgetful.id)
    q = forgetful.query(req, "matrices")
    assert q.declared == ("l_eval", "params")
    assert q.l_eval == st.l_eval and q.params == st.params_of(forgetful.id)
    with pytest.raises(UndeclaredField):
        _ = q.head_dim
    assert getattr(q, "causal", "optional") == "optional"  # getattr with a default: optional by design


def _config():
    return dict(l_eval=96, head_dim=8, base=500.0, l_train=48, content="average", seed=3, causal=False,
                scaling="yarn", factor=2.0, heads=4, alibi_head=2)


@pytest.mark.parametrize("sid", registry.ids())
def test_every_schemes_hooks_run_on_the_fields_it_declares(sid):
    """Each built-in scheme through every job that calls its hooks, at a configuration where no field is its
    default: a field read but not declared raises, so this fails for a scheme that forgot one."""
    sch = registry.get(sid)
    st = SchemesState().clamped(**{f"show_{s}": s == sid for s in registry.ids()}, **_config())
    for req in build_requests(st, "matrices"):
        r = matrix_scores(req)
        assert r.matrix is not None or r.note
    for req in build_requests(st, "distance"):
        d = distance_scores(req)
        assert d.distance.size > 0 or d.note
    beyond_req = next(r for r in build_requests(st, "beyond") if isinstance(r, BeyondRequest))
    assert set(beyond(beyond_req).extras) <= {sid}
    props = next(r for r in build_requests(st, "properties") if isinstance(r, PropertiesRequest))
    assert len(properties(props).rows) == 1
    if sid in grid_ids():
        out = grid(GridRequest(sid, 8, 500.0, 4, 3, 6, 7, st.params_of(sid)))
        assert out.scores is not None or out.note
    for view in ("matrices", "distance", "beyond", "setup", "grid"):
        assert set(sch.fields_for(view)) <= set(FIELD_TYPES)


def test_a_query_is_typed_immutable_comparable_and_travels():
    q = Query("rope", {"l_eval": 64, "head_dim": 8, "base": 10000.0})
    assert pickle.loads(pickle.dumps(q)) == q
    assert q != Query("rope", {"l_eval": 64, "head_dim": 8, "base": 500.0})
    with pytest.raises(AttributeError, match="immutable"):
        q.head_dim = 4  # type: ignore[misc]
    with pytest.raises(TypeError, match="'head_dim' must be a whole number"):
        Query("rope", {"head_dim": "8"})
    with pytest.raises(TypeError, match="must be a whole number"):
        Query("rope", {"seed": True})  # a bool is not a seed
    with pytest.raises(TypeError, match="'base' must be a number"):
        Query("rope", {"base": True})
    # numpy's integers and floats are numbers too (a value computed on the way keeps its numpy type).
    assert Query("rope", {"head_dim": np.int64(8), "base": np.float64(500.0)}).head_dim == 8
    with pytest.raises(TypeError, match="no field 'colour'"):
        Query("rope", {"colour": "red"})
    with pytest.raises(AttributeError, match="no field 'nonsense'"):
        _ = q.nonsense


class SteeperALiBi(ALiBi):
    def slope(self, req):  # a helper ALiBi's snippets write out
        return 2 * super().slope(req)


class RetitledALiBi(ALiBi):
    def display_title(self, req=None):  # not part of any computation
        return "ALiBi, renamed"


class ShiftedSinusoidal(Sinusoidal):
    def score_blocks(self, req, bl):
        return super().score_blocks(req, bl) + 1.0


def test_a_subclass_that_changes_a_computation_does_not_inherit_its_snippet():
    assert SteeperALiBi.score_snippet is Scheme.score_snippet  # its slope is not ALiBi's any more
    assert SteeperALiBi.swap_snippet is Scheme.swap_snippet
    said = SteeperALiBi().score_snippet(Query("alibi", {}))
    assert isinstance(said, NoSnippet) and said.reason == "no snippet for ALiBi yet"
    assert RetitledALiBi.score_snippet is ALiBi.score_snippet  # a title is not a computation
    assert ShiftedSinusoidal.score_snippet is Scheme.score_snippet
    assert ShiftedSinusoidal.swap_snippet is Sinusoidal.swap_snippet  # its Token-swap layer is unchanged
    assert ShiftedSinusoidal.beyond_snippet is Sinusoidal.beyond_snippet
    # The rule cannot pass by itself: the built-in classes keep their own.
    assert ALiBi.score_snippet is not Scheme.score_snippet and Sinusoidal.score_snippet is not Scheme.score_snippet


def test_the_distance_view_reads_its_own_fields():
    sch = registry.get("alibi")
    q = sch.query(DistanceRequest(scheme="alibi", l_eval=64, heads=4, alibi_head=1), "distance")
    assert "causal" not in q.declared  # the causal mask only hides the matrix's future
    assert sch.distance_curve(q, 1024).mean.size


@pytest.mark.parametrize("sid", ["t5", "cope"])
def test_a_distance_curve_that_reads_the_mask_follows_the_mask_box(sid):
    """T5's buckets and CoPE's counts change with the causal mask: the query found their curves read it without
    declaring it, so unticking the box left the curve's request (and the curve) as it was."""
    on, off = (next(r for r in build_requests(SchemesState().clamped(**{f"show_{sid}": True}, causal=c), "distance")
                    if r.scheme == sid) for c in (True, False))
    assert on != off
    a, b = distance_scores(on), distance_scores(off)
    assert a.note != b.note or not np.array_equal(a.mean, b.mean, equal_nan=True)
