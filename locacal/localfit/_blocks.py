r"""One-sided power sums at many points whose windows hold many rows: in-block prefix sums.

:class:`~locacal.localfit._segment.ExactLocalMap` answers every point by segment-tree
queries: about :math:`2 \log_2 n` tree nodes on each side of the point, each moved to the
point by a binomial shift of :math:`O(\text{order}^2)` operations. That is the cost of one
span of :func:`~locacal.curves.selection.smoothing_table` at every observed score. When every
window is known to hold at least :math:`W` rows (a span: :math:`W \ge k = \lfloor n\,
nn\rfloor`), the same sums need about one shift per side:

* cut the sorted rows into blocks of :math:`B = 2^L \le W` rows (the nodes of level
  :math:`L` of the segment tree) and keep, for every row :math:`i` of block :math:`j`, the
  prefix sums :math:`Q_r(i) = \sum_{\text{start}_j \le l \le i} v_l ((s_l - f_j) / c_j)^r`
  about the block's first score :math:`f_j`, and the suffix sums :math:`S_r(i) = \sum_{i \le
  l < \text{end}_j} v_l ((g_j - s_l) / d_j)^r` about the next block's first score
  :math:`g_j` (the last score for the last block), both scaled by the block's width:
  cumulative sums of non-negative terms;
* the left side ``[a, b)`` of a window at ``t`` (rows with :math:`t - h \le s_l \le t`;
  the right side is the left side of the mirrored sample) is then
  - if it crosses a block boundary: the suffix of ``a``'s block from ``a`` and the prefix of
    ``b - 1``'s block up to ``b - 1``, moved to ``t`` by one binomial shift when they share
    their anchor (adjacent blocks), plus the whole blocks between them from a segment tree
    built over the blocks (:func:`~locacal.localfit._moments.grow_levels`,
    :math:`O(\log(W / B))` nodes, usually none);
  - if it lies inside one block: :math:`Q(b-1) - Q(a-1)` when that block starts inside the
    window, otherwise :math:`S(a) - S(b)`, whose anchor is then inside the window (a block
    of :math:`B \le W` rows cannot stick out of the window on both sides).

**Error.** Shifting to ``t`` is the binomial expansion :math:`(t - s_l)/h = (t - A)/h \pm
(c/h) u_l` about the anchor :math:`A`. Every anchor used lies in :math:`[t - h, t + h]` and
every row summed (including the rows a difference cancels) within :math:`2h` of it, so each
row contributes terms of total size at most :math:`3^q` (in units of :math:`h^q`) to the
:math:`q`-th sum, and the rounding error of that sum is below a small multiple of
:math:`3^q (B + W)\,u` (:math:`u = 2^{-53}`; Higham 2002, sections 3.1 and 4.2): not the
few units in the last place of the tree's all-positive expansions, but far below anything
a selection criterion can see. Measured against the tree (``tests/test_selection.py``):
at most 4e-12 of the window's total weight at the level :func:`block_level` picks, 1e-9
with blocks 64 times longer than the smallest window and a point mass at distance exactly
h (the worst case of the bound). Points where neither anchor lies in the window (fixed
bandwidths whose window holds fewer than :math:`B` rows, or block widths beyond
:data:`WIDTH_LIMIT` bandwidths, where the scaled powers could underflow) are flagged and
left to the segment tree.

Reference: C. Loader (1999), *Local Regression and Likelihood*, Springer, appendix B
(kernels as polynomials); N. J. Higham (2002), *Accuracy and Stability of Numerical
Algorithms*, SIAM, 2nd ed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from locacal.localfit._moments import grow_levels, shift_moments

__all__ = ["BlockCache", "BlockSums", "block_level"]

#: Rows per chunk when the block sums are accumulated (a power of two).
CHUNK = 1 << 13
#: Blocks wider than this many bandwidths go to the segment tree (scaled powers underflow).
WIDTH_LIMIT = 1e20


def block_level(rows: np.ndarray) -> int:
    """Largest ``L`` with ``2^L <= min(rows)`` (window sizes), at least 0."""
    smallest = int(rows.min()) if rows.size else 1
    return max(int(smallest).bit_length() - 1, 0)


class BlockCache:
    """Block sums of one sorted sample for one degree and kernel, on both sides of the
    points; the blocks of the last level asked for are kept (one span after another reuses
    them when the level is the same).

    Parameters
    ----------
    scores, weights, labels : ndarray (n,)
        The sorted sample (``weights`` None for unit weights).
    orders : list of int
        Highest power kept for the weights and for weights x labels.
    """

    def __init__(self, scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None,
                 orders: list[int]) -> None:
        self._left = _SideRows(scores, labels, weights, mirrored=False)
        self._right = _SideRows(scores, labels, weights, mirrored=True)
        self._orders = list(orders)
        self._level: int | None = None
        self._pair: tuple[BlockSums, BlockSums] | None = None

    def sides(self, t: np.ndarray, h: np.ndarray, lo: np.ndarray, z: np.ndarray,
              hi: np.ndarray, level: int) -> tuple[list[np.ndarray], list[np.ndarray],
                                                   np.ndarray]:
        """The one-sided sums of ``ExactLocalMap.side_sums`` at points with windows
        ``[lo, hi)`` (``z``: first row above ``t``) from blocks of ``2^level`` rows
        (:func:`block_level` of the window sizes), and the mask of points left to the
        segment tree (their sums are 0)."""
        n = self._left.n
        if self._level != level:
            self._pair = None  # free the previous level first
            self._pair = tuple(BlockSums(side, self._orders, level)
                               for side in (self._left, self._right))
            self._level = level
        left, right = self._pair
        pl, bad_l = left.side(lo, z, lo, hi, t, h)
        pr, bad_r = right.side(n - hi, n - z, n - hi, n - lo, -t, h)
        return pl, pr, bad_l | bad_r


class BlockSums:
    """In-block prefix and suffix power sums of non-negative columns of sorted scores.

    The sums are not stored row by row (2 (order + 1) floats per row and column, 740 bytes a
    row for the tricube kernel in degree 1): :class:`_InBlockSums` keeps what each chunk of
    :data:`CHUNK` rows needs to be recomputed, and recomputes the chunks holding the rows a
    query reads, with the same arithmetic, so every sum is the stored one bit for bit.

    Parameters
    ----------
    side : _SideRows
        Sorted ascending scores (the mirrored scores for the right side of the points) and
        their non-negative columns (prior weights, weights x labels).
    orders : list of int
        Highest power kept for each column.
    level : int
        Blocks of ``2^level`` rows.
    """

    def __init__(self, side: _SideRows, orders: list[int], level: int) -> None:
        n = side.n
        size = 1 << level
        nb = -(-n // size)
        self.side_rows, self.orders, self.level = side, list(orders), level
        starts = np.arange(nb) * size
        ends = np.minimum(starts + size, n)
        self.first = side.scores_at(starts)
        last = side.scores_at(ends - 1)
        self.anchor_row = np.minimum(ends, n - 1)
        self.next_first = side.scores_at(self.anchor_row)
        self.width_q = _positive(last - self.first)
        self.width_s = _positive(self.next_first - self.first)
        # u = (s - first) / width_q for the prefix sums, (next_first - s) / width_s for the
        # suffix sums (no reference back to self: the sums are freed with the level)
        self.prefix = _InBlockSums(_BlockOffsets(side, level, self.first, self.width_q, False),
                                   n, self.orders, size, reverse=False)
        self.suffix = _InBlockSums(_BlockOffsets(side, level, self.next_first, self.width_s,
                                                 True), n, self.orders, size, reverse=True,
                                   keep=starts)
        # the segment tree over whole blocks: a block's moments about the next block's first
        # score are its suffix sums from its start (all at or left of any point beyond it)
        self.tree = grow_levels(self.next_first.copy(), self.first.copy(),
                                self.next_first - self.first, self.suffix.kept, self.orders)

    def side(self, a: np.ndarray, b: np.ndarray, w_lo: np.ndarray, w_hi: np.ndarray,
             t: np.ndarray, h: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
        """``sum_{a <= l < b} v_l ((t - s_l) / h)^q``, ``q = 0..order``, for each column.

        ``[a, b)`` (possibly empty) must hold rows with ``t - h <= s_l <= t`` and lie inside
        the window ``[w_lo, w_hi)`` of rows within ``h`` of ``t``. Returns the sums (list of
        (order + 1, m) arrays) and a mask of the points this scheme cannot answer accurately
        (module docstring), whose sums are left at 0.
        """
        return self._side_batch(a, b, w_lo, w_hi, t, h)

    def _side_batch(self, a, b, w_lo, w_hi, t, h):
        level, s, n = self.level, self.side_rows.scores_at, self.side_rows.n
        live = b > a
        ja = a >> level
        last = np.maximum(b - 1, 0)
        jb = last >> level
        start_b = jb << level
        within = live & (ja == jb)
        use_q = within & (start_b >= w_lo)
        use_s = within & ~use_q & (self.anchor_row[ja] < w_hi)
        cross = live & (ja < jb)
        far = cross & (jb > ja + 1)
        bad = within & ~use_q & ~use_s
        bad |= live & (np.maximum(self.width_q[jb], self.width_s[ja]) > WIDTH_LIMIT * h)
        ok = ~bad
        # row indices of the sums to add and subtract (n: the zero column)
        i_qb = np.where(ok & (use_q | (cross & ~far)), last, n)
        i_qa = np.where(ok & use_q & (a > start_b), a - 1, n)
        i_sa = np.where(ok & (use_s | cross), a, n)
        i_sb = np.where(ok & use_s & (b < (ja + 1) << level), b, n)
        # one anchor per point: adjacent blocks share s[start of b's block]
        anchor = np.where(use_q, s(start_b), self.next_first[ja])
        # empty sides sum nothing and the bad points' sums are left to the segment tree: 0
        # offset and scale for both, whose (distance / h)^q could overflow at a tiny h
        used = ok & live
        with np.errstate(over="ignore"):  # inf only where not used
            e = np.where(used, (t - anchor) / h, 0.0)
            rho_s = np.where(used, self.width_s[ja] / h, 0.0)
        ratio = -self.width_q[jb] / self.width_s[ja]
        sel = np.flatnonzero(ok & far)
        pre_b, pre_a, pre_far = self.prefix.take(i_qb, i_qa, last[sel])
        suf_a, suf_b = self.suffix.take(i_sa, i_sb)
        out = []
        for col, order in enumerate(self.orders):
            combined = _scaled(pre_b[col] - pre_a[col], ratio)
            combined += suf_a[col]
            combined -= suf_b[col]
            out.append(shift_moments(combined, e, rho_s, order))
        if sel.size:  # b's block two or more blocks away: its own anchor, and whole blocks
            e_far = (t[sel] - s(start_b[sel])) / h[sel]
            rho_q = -self.width_q[jb[sel]] / h[sel]
            for col, order in enumerate(self.orders):
                out[col][:, sel] += shift_moments(pre_far[col], e_far, rho_q, order)
            self._whole_blocks(out, sel, ja[sel] + 1, jb[sel], t[sel], h[sel])
        return out, bad

    def _whole_blocks(self, out, sel, first_block, end_block, t, h) -> None:
        """Add the blocks ``[first_block, end_block)`` (bottom-up segment-tree walk), each
        node moved from its last score to ``t`` (non-negative terms)."""
        lo, hi = first_block.copy(), end_block.copy()
        for anchor, width, moments in self.tree:
            live = lo < hi
            if not live.any():
                break
            for take, node in ((live & (lo & 1 == 1), lo), (live & (hi & 1 == 1), hi - 1)):
                idx = np.flatnonzero(take)
                if idx.size:
                    nd = node[idx]
                    e = (t[idx] - anchor[nd]) / h[idx]
                    rho = width[nd] / h[idx]
                    for col, order in enumerate(self.orders):
                        out[col][:, sel[idx]] += shift_moments(moments[col][:, nd], e, rho,
                                                               order)
            lo = np.where(live & (lo & 1 == 1), lo + 1, lo) >> 1
            hi = np.where(live & (hi & 1 == 1), hi - 1, hi) >> 1


def _positive(width: np.ndarray) -> np.ndarray:
    return np.where(width > 0, width, 1.0)


class _SideRows:
    """The rows of one side of the points, chunk by chunk, without a copy of the sample: the
    sorted scores, or their mirror image ``-s`` reversed
    (:func:`~locacal.localfit._moments.mirror`: the right side of a
    point becomes the left side of its mirror image), with their columns, the prior weights
    ``v`` (1 without weights) and ``v`` where the label is 1 (0 elsewhere)."""

    def __init__(self, scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None,
                 mirrored: bool) -> None:
        self._scores, self._labels, self._weights = scores, labels, weights
        self.mirrored = mirrored
        self.n = int(scores.shape[0])

    def scores_at(self, idx: np.ndarray) -> np.ndarray:
        """The side's scores at rows ``idx``."""
        return -self._scores[self.n - 1 - idx] if self.mirrored else self._scores[idx]

    def rows(self, c0: int, c1: int) -> tuple[np.ndarray, list[np.ndarray]]:
        """Scores and columns ``[v, v y]`` of the side's rows ``[c0, c1)``."""
        if self.mirrored:
            part = slice(self.n - c1, self.n - c0)
            s = -self._scores[part][::-1]
            labels = self._labels[part][::-1]
            w = None if self._weights is None else self._weights[part][::-1]
        else:
            part = slice(c0, c1)
            s, labels = self._scores[part], self._labels[part]
            w = None if self._weights is None else self._weights[part]
        v = np.ones(c1 - c0) if w is None else w
        return s, [v, np.where(labels, v, 0.0)]


class _BlockOffsets:
    """Rows ``[c0, c1)`` of a side as ``u`` and columns: ``u = (s - anchor) / width`` of the
    row's block, or ``(anchor - s) / width`` (``reverse``)."""

    def __init__(self, side: _SideRows, level: int, anchor: np.ndarray, width: np.ndarray,
                 reverse: bool) -> None:
        self.side, self.level = side, level
        self.anchor, self.width, self.reverse = anchor, width, reverse

    def __call__(self, c0: int, c1: int) -> tuple[np.ndarray, list[np.ndarray]]:
        s, columns = self.side.rows(c0, c1)
        block = np.arange(c0, c1) >> self.level
        if self.reverse:
            return (self.anchor[block] - s) / self.width[block], columns
        return (s - self.anchor[block]) / self.width[block], columns


class _InBlockSums:
    """For each column ``v``: the inclusive cumulative sums of ``v u^r`` (``r = 0..order``)
    restarting at every block of ``size`` rows (summed from the block's end if ``reverse``),
    read at any rows by :meth:`take` (row n: "nothing to add", zeros).

    They are computed by chunks of :data:`CHUNK` rows, so that the powers stay in cache; a
    block longer than a chunk carries its running sum from one chunk to the next (a sum of
    non-negative terms in another order: the same accuracy). One pass at construction keeps
    only each chunk's incoming carry and the sums at the rows ``keep`` (no pass when blocks
    are shorter than a chunk and nothing is kept); :meth:`take`
    recomputes a chunk from its rows and carry by the same operations, so each value is the
    one the whole array would hold, bit for bit. The last few chunks computed are kept, since
    consecutive batches of sorted points read neighbouring rows.

    ``rows(c0, c1)`` gives ``u`` and the columns of rows ``[c0, c1)``.
    """

    _KEPT_CHUNKS = 3

    def __init__(self, rows: Any, n: int, orders: list[int], size: int, reverse: bool,
                 keep: np.ndarray | None = None) -> None:
        self._rows, self.n, self.orders = rows, n, list(orders)
        self.size, self.reverse = size, reverse
        self._carry: dict[int, list[np.ndarray]] = {}
        self._recent: dict[int, list[np.ndarray]] = {}
        keep = np.empty(0, dtype=np.intp) if keep is None else keep
        self.kept = [np.zeros((order + 1, keep.size)) for order in orders]
        carry: list[np.ndarray] | None = [np.zeros(order + 1) for order in orders]
        if size < CHUNK and keep.size == 0:
            return  # no carries (every block within a chunk) and nothing to keep
        starts = range(0, n, CHUNK)
        for c0 in reversed(starts) if reverse else starts:
            c1 = min(c0 + CHUNK, n)
            joined = (c1 % size != 0 and c1 < n) if reverse else c0 % size != 0
            if joined:
                self._carry[c0] = carry
            sums, carry = self._chunk(c0, carry if joined else None)
            inside = np.flatnonzero((keep >= c0) & (keep < c1))
            for kept, part in zip(self.kept, sums, strict=True):
                kept[:, inside] = part[:, keep[inside] - c0]

    def _chunk(self, c0: int, carry: list[np.ndarray] | None
               ) -> tuple[list[np.ndarray], list[np.ndarray] | None]:
        """The sums of rows ``[c0, c0 + CHUNK)`` (one (order + 1, width) array per column),
        and the carry to the next chunk (blocks longer than a chunk)."""
        n, size, reverse = self.n, self.size, self.reverse
        c1 = min(c0 + CHUNK, n)
        width = c1 - c0
        u, columns = self._rows(c0, c1)
        top = max(self.orders)
        powers = np.zeros((top + 1, CHUNK))
        powers[0, :width] = 1.0
        for r in range(1, top + 1):
            np.multiply(powers[r - 1, :width], u, out=powers[r, :width])
        out, carried = [], []
        for index, (col, order) in enumerate(zip(columns, self.orders, strict=True)):
            x = np.zeros((order + 1, CHUNK))
            np.multiply(powers[:order + 1, :width], col, out=x[:, :width])
            if size >= CHUNK:  # the chunk lies inside one block
                res = np.cumsum(x[:, ::-1] if reverse else x, axis=1)
                if carry is not None:
                    res += carry[index][:, None]
                carried.append(res[:, -1].copy())
                if reverse:
                    res = res[:, ::-1]
            else:  # the chunk holds whole blocks
                blocks = x.reshape(order + 1, CHUNK // size, size)
                res = np.cumsum(blocks[:, :, ::-1] if reverse else blocks, axis=2)
                if reverse:
                    res = res[:, :, ::-1]
                res = res.reshape(order + 1, CHUNK)
            out.append(res[:, :width])
        return out, (carried if size >= CHUNK else None)

    def _sums_of_chunk(self, c0: int) -> list[np.ndarray]:
        if c0 not in self._recent:
            if len(self._recent) >= self._KEPT_CHUNKS:
                del self._recent[next(iter(self._recent))]
            self._recent[c0] = self._chunk(c0, self._carry.get(c0))[0]
        return self._recent[c0]

    def take(self, *indices: np.ndarray) -> list[list[np.ndarray]]:
        """The sums at the rows of each index array (values in [0, n]; n gives zeros): for
        each array, one (order + 1, len) array per column."""
        idx = np.concatenate(indices).astype(np.intp)
        out = [np.zeros((order + 1, idx.size)) for order in self.orders]
        read = np.flatnonzero(idx < self.n)
        chunk = idx[read] // CHUNK
        # the rows grouped by chunk (a stable sort of small integers), chunks in ascending
        # order as they are computed and kept
        order = np.argsort(chunk, kind="stable")
        sizes = np.bincount(chunk)
        present = np.flatnonzero(sizes)
        ends = np.cumsum(sizes[present])
        for c, a, b in zip(present.tolist(), (ends - sizes[present]).tolist(), ends.tolist(),
                           strict=True):
            rows = read[order[a:b]]
            local = idx[rows] - c * CHUNK
            for target, part in zip(out, self._sums_of_chunk(c * CHUNK), strict=True):
                target[:, rows] = part[:, local]
        bounds = np.cumsum([0] + [i.size for i in indices])
        return [[target[:, a:b] for target in out]
                for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)]


def _scaled(moments: np.ndarray, rho: np.ndarray) -> np.ndarray:
    """``rho^r M_r`` for every row r."""
    out = moments.copy()
    power = np.ones_like(rho)
    for r in range(1, moments.shape[0]):
        power = power * rho
        out[r] *= power
    return out

