"""FIRE: a small MLP of the progressively normalised log distance, a bias on the scores (Li et al. 2023).

Li et al. 2023, "Functional Interpolation for Relative Positions Improves Long Context Transformers"
(ICLR 2024), eq. (3) and their appendix code:

    b(i, j) = f_θ( ψ(i − j) / ψ(max(L, i)) ),   ψ(x) = log(c·x + 1),

f_θ: 1 → 32 → H (ReLU), one bias per head; c (started at 0.1) and the threshold L are learned; one module
per layer.  Dividing by ψ of the query's own position (progressive interpolation) maps every query's keys into
[0, 1]: a query far past training sees the same range of inputs it was trained on — how FIRE length-generalises.
Below L the normaliser is the constant ψ(L), so short sequences are not squeezed and the bias is relative there.

The Schemes panel draws the bias of layer 1 from the Lab's trained weights when a finished Lab run in this
session trained FIRE, else from a seeded initialisation as torch would make it (it says which).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..encodings.blocks import distance_grid
from .base import (
    BAND_POINTS,
    Curve,
    NotShown,
    Parameter,
    PlotSpec,
    Scheme,
    SnippetPart,
    Source,
    SwapTerms,
    band,
    band_queries,
    future_mask,
    lab_position_class,
    lit,
    mirror_blind,
)
from .query import Query, SchemesSetup, SwapSetup

#: Width of f_θ's hidden layer (the paper's 32) and its starting c (0.1).
MLP_WIDTH = 32
INIT_C = 0.1
#: Added to ψ(max(L, i)) against a division by zero (the authors' eps).
EPS = 1e-6
#: Largest L_eval the live panel draws (one MLP evaluation per visible pair).
FIRE_LIVE_MAX = 2048


#: Copy as Python: f_θ's weights as an untrained model starts (torch's Linear init, here from numpy's generator).
SEEDED_SNIPPET = """\
rng = np.random.default_rng([seed, 19])  # f_θ: 1 → 32 → heads, started as torch's Linear: U(±1/√fan_in)
w1, b1 = rng.uniform(-1, 1, (32, 1)), rng.uniform(-1, 1, 32)
lim = 1 / np.sqrt(32)
w2, b2 = rng.uniform(-lim, lim, (heads, 32)), rng.uniform(-lim, lim, heads)
fire_c, threshold = 0.1, float({threshold})  # c and L as they start
"""
#: Copy as Python: the normalised distance, and f_θ (``{x}`` → (…, heads)).
MLP_SNIPPET = """\
def normalised(i, j):
    \"\"\"ψ(i − j)/(ψ(max(L, i)) + ε), ψ(x) = log(c·|x| + 1): in [0, 1) for every key j ≤ i.\"\"\"
    return np.log1p(np.abs(fire_c * (i - j))) / (np.log1p(np.abs(fire_c * np.maximum(abs(threshold), i))) + 1e-6)


def f_theta(x):
    \"\"\"The MLP W₂·relu(W₁x + b₁) + b₂ of scalar inputs x: (…) → (…, heads).\"\"\"
    return np.maximum(x[..., None] * w1[:, 0] + b1, 0.0) @ w2.T + b2
"""
#: Copy as Python: one head's bias at every query and key, a few queries at a time.
SCORE_SNIPPET = """\
delta_s = np.empty((L, L))
for start in range(0, L, 64):  # 64 queries at a time: every pair goes through 32 hidden units
    i = pos[start:start + 64, None].astype(np.float64)
    delta_s[start:start + 64] = f_theta(normalised(i, pos[None, :].astype(np.float64)))[..., head]
if causal:
    delta_s = np.where(np.subtract.outer(pos, pos) < 0, np.nan, delta_s)  # no value for a key after its query"""
#: Copy as Python: the Token swap's bias, L = the sentence's length (the mask is the layer's).
SWAP_SNIPPET = """\
m = np.arange(n, dtype=np.float64)
bias = np.moveaxis(f_theta(normalised(m[:, None], m[None, :])), -1, 0)  # (heads, n, n)"""


def psi(x, c: float) -> np.ndarray:
    """ψ(x) = log(c·|x| + 1) (the authors take |c·x|, so the future mirrors the past)."""
    return np.log1p(np.abs(float(c) * np.asarray(x, dtype=np.float64)))


def normalised_distance(i, j, c: float, threshold: float) -> np.ndarray:
    """ψ(i − j)/(ψ(max(L, i)) + ε): the MLP's input, in [0, 1) for every key j ≤ i."""
    i = np.asarray(i, dtype=np.float64)
    return psi(i - np.asarray(j, dtype=np.float64), c) / (psi(np.maximum(abs(threshold), i), c) + EPS)


def mlp(x, w1, b1, w2, b2) -> np.ndarray:
    """f_θ(x) = W₂·relu(W₁x + b₁) + b₂ for scalar inputs x (any shape) → (…, H)."""
    x = np.asarray(x, dtype=np.float64)[..., None]
    return np.maximum(x * w1[:, 0] + b1, 0.0) @ w2.T + b2


def seeded_weights(heads: int, seed: int, threshold: float) -> dict:
    """f_θ, c and L as an untrained model starts (torch's Linear init: U(±1/√fan_in)), from ``seed``."""
    rng = np.random.default_rng([seed, 19])
    lim = 1 / np.sqrt(MLP_WIDTH)
    return {"w1": rng.uniform(-1, 1, (MLP_WIDTH, 1)), "b1": rng.uniform(-1, 1, MLP_WIDTH),
            "w2": rng.uniform(-lim, lim, (heads, MLP_WIDTH)), "b2": rng.uniform(-lim, lim, heads),
            "c": INIT_C, "L": float(threshold)}


def fire_bias(n: int, w: dict, causal: bool = True) -> np.ndarray:
    """(H, n, n): b_h(i, j) for queries i and keys j < n; −inf above the diagonal when ``causal``."""
    pos = np.arange(n)
    x = normalised_distance(pos[:, None], pos[None, :], w["c"], w["L"])
    out = np.moveaxis(mlp(x, w["w1"], w["b1"], w["w2"], w["b2"]), -1, 0)
    return out + future_mask(n) if causal else out


def pack(weights: dict) -> tuple:
    """The weights as a hashable tuple ((name, shape, values), …): what a request or a Lab result carries."""
    return tuple((k, tuple(np.shape(v)), tuple(float(x) for x in np.ravel(v))) for k, v in sorted(weights.items()))


def unpack(packed: tuple) -> dict:
    out = {}
    for name, shape, values in packed:
        a = np.asarray(values, dtype=np.float64).reshape(shape)
        out[name] = float(a) if a.ndim == 0 else a
    return out


class Fire(Scheme):
    snippet_reads = ("weights",)  # helpers its snippets write out (see Scheme.snippet_reads)
    id = "fire"
    title = "FIRE"
    colour = "#999933"  # an olive of its own (once T5's sky blue: alike at 720p); dotted as a second cue
    line = "dot"  # dotted, not dashed: a second cue beside its colour
    symbol = "x"
    order = 72
    description = ("A small MLP of the log distance, normalised by the query's own position, added to the "
                   "scores: every query sees inputs in [0, 1], however long the sequence.")
    sources = (Source("Li, You, Guruganesh, Ainslie, Ontanon, Zaheer, Sanghai, Yang, Kumar & Bhojanapalli 2023, "
                      "“Functional Interpolation for Relative Positions Improves Long Context Transformers”, "
                      "ICLR 2024", 2023, "https://arxiv.org/abs/2310.04418"),)
    kind = "bias"
    relative = False  # relative below the threshold L; past it the query's own position normalises
    bounded = True
    parameters = (
        Parameter("heads", 8, 1, 64, "heads", field="heads"),
        Parameter("alibi_head", 0, 0, 63, "head shown", field="alibi_head"),
        Parameter("l_train", 512, 2, 131072, "threshold L (= L_train)", field="l_train"),
    )
    depends_on = ("heads", "alibi_head", "l_train", "causal", "seed", "trained")
    curve_depends_on = ("heads", "alibi_head", "l_train", "seed", "trained")
    used_by = "research models: the decoder language models of Li et al. 2023 (ICLR 2024)"
    where = "a bias on each head's scores: a small MLP of ψ(i − j)/ψ(max(L, i))"
    relation = "relative below L; past it normalised by the query's position (progressive interpolation)"
    swap_label = "FIRE (score bias)"
    swap_note = "A seeded MLP of the normalised log distance added to the scores (Li et al. 2023)."
    in_lab = True
    lab_note = "a learned MLP of the normalised log distance on the scores (FIRE, Li et al. 2023)"
    shown_by_default = False
    lab_by_default = False
    uses_lab_weights = True

    def weights(self, req) -> tuple[dict, int, str]:
        """(weights, head, where they come from) for this request: the Lab's, when it trained FIRE."""
        packed = getattr(req, "trained", ())
        if packed:
            w = unpack(packed)
            heads = w["w2"].shape[0]
            head = int(req.alibi_head) % heads
            extra = f", head {head} of {heads}" if heads != int(req.heads) else ""
            return w, head, f"trained in the Lab (layer 1{extra})"
        return seeded_weights(int(req.heads), int(req.seed), int(req.l_train)), int(req.alibi_head), \
            f"seeded initialisation (seed {req.seed}; train FIRE in the Lab to see learned weights)"

    def matrix_title(self, req: Query) -> str:
        return "FIRE (Lab-trained)" if getattr(req, "trained", ()) else "FIRE (seeded)"  # fits at 1280 × 720 F5

    def parameters_added(self, req: Query) -> int:
        h = int(getattr(req, "heads", 1))
        return 2 * MLP_WIDTH + (MLP_WIDTH + 1) * h + 2

    def parameters_text(self, req: Query) -> str:
        return (f"MLP 1 → {MLP_WIDTH} → {req.heads} heads, c and L: {self.parameters_added(req):,} per layer")

    def past_training(self, req: Query) -> str:
        return ("defined at any length: each query divides by ψ of its own position, so its keys' inputs stay "
                "in [0, 1) — the range seen in training — but neighbours get squeezed towards 0")

    def _check(self, n: int) -> None:
        if n > FIRE_LIVE_MAX:
            raise NotShown(f"FIRE is drawn up to L_eval = {FIRE_LIVE_MAX:,} (one MLP evaluation per pair); "
                           f"lower L_eval")

    # -- Schemes panel ------------------------------------------------------------------------------
    def formula_line(self, st: SchemesSetup) -> str:
        return (f"<b>FIRE</b>: score + f<sub>θ</sub>(ψ(i − j)/ψ(max(L, i))), ψ(x) = log(cx + 1), f<sub>θ</sub>: "
                f"1 → {MLP_WIDTH} → heads; seeded: L = L_train = {st.l_train:,}, c = {INIT_C:g}")

    def score_blocks(self, req: Query, bl):
        n = bl.length
        self._check(n)
        w, head, _src = self.weights(req)
        sums = np.zeros((bl.n, bl.n))
        counts = np.zeros((bl.n, bl.n))
        cols = np.arange(n)
        for a in range(bl.n):
            rows = np.arange(bl.starts[a], bl.starts[a] + bl.counts[a])
            x = normalised_distance(rows[:, None], cols[None, :], w["c"], w["L"])
            f = mlp(x, w["w1"], w["b1"], w["w2"][head:head + 1], w["b2"][head:head + 1])[..., 0]
            seen = np.ones_like(f, dtype=bool) if not req.causal else cols[None, :] <= rows[:, None]
            sums[a] = np.add.reduceat(np.where(seen, f, 0.0).sum(axis=0), bl.starts)
            counts[a] = np.add.reduceat(seen.sum(axis=0), bl.starts)
        with np.errstate(invalid="ignore"):
            return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)

    def distance_curve(self, req: Query, max_points):
        n = int(req.l_eval)
        try:
            self._check(n)
        except NotShown as exc:
            empty = np.zeros(0)
            return Curve(empty, empty, note=str(exc))
        return super().distance_curve(req, max_points)

    def distance_values(self, req: Query, dist):
        n = int(req.l_eval)
        w, head, _src = self.weights(req)

        def score(q, keys):
            x = normalised_distance(q, keys, w["c"], w["L"])
            return mlp(x, w["w1"], w["b1"], w["w2"][head:head + 1], w["b2"][head:head + 1])[..., 0]

        mean = np.empty(dist.size)
        for k, dl in enumerate(dist):
            q = np.arange(int(dl), n)
            mean[k] = score(q, q - dl).mean()
        band_d, _ = distance_grid(n, min(dist.size, BAND_POINTS))
        lo, hi = band(band_d, band_queries(n), score)
        marks = ((float(w["L"]), "threshold L"),) if w["L"] < n else ()
        return Curve(dist, mean, lo=lo, hi=hi, band_distance=band_d, marks=marks)

    def beyond_plot(self, req: Query):
        w, head, src = self.weights(req)
        x = np.linspace(0.0, 1.0, 201)
        f = mlp(x, w["w1"], w["b1"], w["w2"][head:head + 1], w["b2"][head:head + 1])[..., 0]
        return PlotSpec(f"FIRE f_θ on [0, 1], head {head}: {src}", x, f,
                        "normalised distance ψ(i − j)/ψ(max(L, i))", "bias")

    def score_snippet(self, req: Query):
        w, head, _src = self.weights(req)
        if getattr(req, "trained", ()):  # a Lab run's weights: numpy cannot rebuild them, so they are written out
            weights = (f"# f_θ of layer 1 as the Lab trained it ({w['w2'].size + w['b2'].size + 2 * MLP_WIDTH + 2} "
                       "numbers, written out: numpy cannot rebuild a training run)\n"
                       f"w1 = {lit(w['w1'])}\nb1 = {lit(w['b1'])}\nw2 = {lit(w['w2'])}\nb2 = {lit(w['b2'])}\n"
                       f"fire_c, threshold = {lit(float(w['c']))}, {lit(float(w['L']))}\n")
        else:
            weights = SEEDED_SNIPPET.format(threshold="l_train")
        return SnippetPart(weights + MLP_SNIPPET + "\n\n" + SCORE_SNIPPET,
                           params=(("head", head, "the head whose bias is shown"),))

    def beyond_snippet(self, req: Query):
        part = self.score_snippet(req)
        code = part.code.split("delta_s = np.empty")[0]  # the weights and f_θ, without the matrix
        return SnippetPart(code + "x = np.linspace(0.0, 1.0, 201)  # normalised distance\ny = f_theta(x)[..., head]",
                           params=part.params)

    def swap_snippet(self, st: SwapSetup):
        return SnippetPart(SEEDED_SNIPPET.format(threshold="n") + MLP_SNIPPET + "\n\n" + SWAP_SNIPPET,
                           defines=("bias",))

    # -- Token swap -------------------------------------------------------------------------------
    def swap_terms(self, n, d_model, heads, seed, causal):
        w = seeded_weights(heads, seed, n)
        pos = np.arange(n)
        x = normalised_distance(pos[:, None], pos[None, :], w["c"], w["L"])  # |i − j| past the diagonal
        return SwapTerms(bias=np.moveaxis(mlp(x, w["w1"], w["b1"], w["w2"], w["b2"]), -1, 0))

    def swap_reason(self, st: SwapSetup) -> str:
        return ("FIRE adds an MLP of the normalised log distance to the scores; the swap changed the distances "
                "between the swapped words and the others.")

    def swap_invisible(self, st: SwapSetup, keeps_distances):
        if not keeps_distances:
            return None
        return mirror_blind("FIRE", "Here L is the sentence's length, so every query divides by the same ψ(L) "
                            "and, without the causal mask, the bias depends on |i−j| only.")

    def swap_formula(self, st: SwapSetup, dh: int) -> dict:
        return {"extra": " + f<sub>θ</sub>(ψ(i − j)/ψ(max(L, i)))",
                "notes": ["ψ(x) = log(0.1·x + 1), L = the sentence's length; f<sub>θ</sub> seeded, untrained"]}

    # -- Lab --------------------------------------------------------------------------------------
    def lab_module(self, d_model, heads, train_len):
        import torch
        from torch import nn

        class FirePosition(lab_position_class()):  # type: ignore[misc]  # built on first use (torch)
            def setup_layers(self, layers: int) -> None:
                self.mlps = nn.ModuleList(nn.Sequential(nn.Linear(1, MLP_WIDTH), nn.ReLU(),
                                                        nn.Linear(MLP_WIDTH, self.heads)) for _ in range(layers))
                self.c = nn.Parameter(torch.full((layers,), INIT_C))
                self.l_mult = nn.Parameter(torch.ones(layers))  # L = |multiplier·L_train|, as the authors learn it

            def layer_bias(self, layer, n, device, dtype, shared):
                def build():
                    pos = torch.arange(n, dtype=dtype, device=device)
                    return pos, torch.tensor(future_mask(n), dtype=dtype, device=device)

                pos, mask = self.cached("fire", n, device, build)
                c = self.c[layer].to(dtype)
                threshold = torch.abs(self.l_mult[layer] * self.train_len).to(dtype)
                rel = torch.log(torch.abs(c * (pos[:, None] - pos[None, :])) + 1)
                norm = torch.log(torch.abs(c * torch.maximum(pos, threshold)) + 1)[:, None] + EPS
                return self.mlps[layer]((rel / norm)[..., None]).permute(2, 0, 1) + mask

            def trained_weights(self) -> dict:
                seq: Any = self.mlps[0]  # layer 1's MLP: Linear, ReLU, Linear
                first, last = seq[0], seq[2]

                def arr(t):
                    return t.detach().double().cpu().numpy()

                return {"w1": arr(first.weight), "b1": arr(first.bias), "w2": arr(last.weight), "b2": arr(last.bias),
                        "c": float(self.c[0].item()), "L": float(abs(self.l_mult[0].item() * self.train_len))}

        return FirePosition(self, d_model, heads, train_len)

    def lab_weights(self, module) -> tuple:
        return pack(module.trained_weights())


SCHEME = Fire()
