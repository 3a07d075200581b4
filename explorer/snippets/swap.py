"""Copy as Python for the Token-swap panel: one attention layer before and after swapping two tokens.

The program follows :mod:`explorer.jobs.swap` line by line (seeded embeddings, projections, heads, the mask);
what the positional scheme does comes from its :meth:`~explorer.schemes.base.Scheme.swap_snippet` hook.
"""

from __future__ import annotations

from typing import Any

from .. import schemes as registry
from . import NoSnippet, Snippet, program

#: What each plot's export holds (see ``explorer.panels.swap.panel.export_arrays``), as the program's names.
RESULTS = {
    "before": '{"weights before [query, key]": w_before[head], "row sums": w_before[head].sum(-1)}',
    "after": '{"weights after [query, key]": w_after[head], "row sums": w_after[head].sum(-1)}',
    "bars": '{"key (original place)": np.arange(n), "weight before": w_before[head, query], '
            '"weight after": w_moved_back[head, query]}',
    "out_before": '{"outputs before [token, component]": out_before}',
    "out_after": '{"outputs after, moved back [token, component]": out_moved_back}',
    "out_diff": '{"after - before [token, component]": out_moved_back - out_before}',
}


def _attention(defines: tuple[str, ...]) -> str:
    """The layer, with the scheme's terms where it defines them."""
    key_rotate = "rotate_k" if "rotate_k" in defines else "rotate"  # keys rotated their own way (xPos)
    add = "    x = x + alpha * added  # the positional vectors, scaled by α\n" if "added" in defines else ""
    rot = ("    q = np.stack([rotate(q[h]) for h in range(heads)])  # rotated by position\n"
           f"    k = np.stack([{key_rotate}(k[h]) for h in range(heads)])\n") if "rotate" in defines else ""
    bias = "    scores = scores + bias  # the scheme's bias on the scores\n" if "bias" in defines else ""
    if "score" in defines:
        bias += "    scores = scores + score(q, k)  # the scheme's relative term, from the queries and keys\n"
    value = ("    out = weights @ v + value(weights)  # the scheme's relative values, weighted\n" if "value" in defines
             else "    out = weights @ v\n")
    return f'''\
def layer(words):
    """One attention layer over ``words``: weights (heads, n, n) and outputs (n, d_model)."""
    x = np.stack([embedding(w) for w in words])
{add}    q, k, v = ((x @ w).reshape(n, heads, dh).transpose(1, 0, 2) for w in (W_Q, W_K, W_V))
{rot}    scores = q @ k.transpose(0, 2, 1) / np.sqrt(dh)
{bias}    future = np.triu(np.ones((n, n), dtype=bool), 1)  # key after query
    if causal and not mask_after_softmax:
        scores = np.where(future, -np.inf, scores)  # the causal mask, before the softmax
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)  # softmax, row by row
    if causal and mask_after_softmax:
        weights = np.where(future, 0.0, weights)  # the common mistake: rows no longer sum to 1
{value}    return weights, out.transpose(1, 0, 2).reshape(n, d_model)
'''


def snippet(st: Any, plot: str, title: str) -> Snippet | NoSnippet:
    """The program for plot ``plot`` (a key of :data:`RESULTS`) of the Token-swap state ``st``."""
    part = registry.get(st.scheme).swap_snippet(st)
    if isinstance(part, NoSnippet):
        return part
    tokens = st.tokens
    n = len(tokens)
    params = [("sentence", st.sentence, "whitespace tokens"), ("swap_i", int(st.swap_i), "the two places swapped"),
              ("swap_j", int(st.swap_j), ""), ("d_model", int(st.d_model), "model width"),
              ("heads", int(st.heads), "attention heads"), ("seed", int(st.seed), "seed of W_Q, W_K, W_V"),
              ("alpha", float(st.alpha), "PE strength α"), ("causal", bool(st.causal), "causal mask"),
              ("mask_after_softmax", bool(st.mask_after_softmax), "mask after the softmax (a mistake)"),
              ("head", min(int(st.head), int(st.heads) - 1), "the head the maps show"),
              ("query", min(int(st.query), n - 1), "the query the bars show"), *part.params]
    body = f'''\
tokens = sentence.split()
n, dh = len(tokens), d_model // heads


def embedding(word):
    """The word's vector: N(0, 1) entries seeded by CRC-32 of the word — the same wherever it stands."""
    return np.random.default_rng(zlib.crc32(word.encode("utf-8"))).standard_normal(d_model)


rng = np.random.default_rng(seed)
scale = 1.0 / np.sqrt(d_model)  # N(0, 1/d) entries keep x·W at the size of x
W_Q, W_K, W_V = (rng.standard_normal((d_model, d_model)) * scale for _ in range(3))

# {registry.get(st.scheme).title}:
{part.code.strip() or "# nothing positional: the layer sees a bag of words"}


{_attention(part.defines)}

swapped = list(tokens)
swapped[swap_i], swapped[swap_j] = swapped[swap_j], swapped[swap_i]
w_before, out_before = layer(tokens)
w_after, out_after = layer(swapped)
perm = np.arange(n)  # perm[t] = the new place of the token that was at place t
perm[swap_i], perm[swap_j] = swap_j, swap_i
w_moved_back = w_after[:, perm][:, :, perm]  # "after", each token back at its old place
out_moved_back = out_after[perm]  # equals out_before when the layer cannot see order'''
    return program(title, params, body, RESULTS[plot], imports=("zlib", *part.imports))
