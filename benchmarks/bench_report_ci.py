"""Cost of ``calibration_report(ci=True)``: bootstrap intervals and null expectations.

For n in ``--sizes`` (default 1e4 and 1e5), calibrated scores from
``locacal.simulate.logistic_dgp``, measured in the same run:

* ``report``: ``calibration_report(s, y)`` (one evaluation of every metric);
* ``ci``: ``calibration_report(s, y, ci=True, n_boot=--n-boot)``: n_boot bootstrap
  evaluations of every metric plus n_boot null label draws of the calibration metrics;
* ``ci / report``: against the 2 n_boot + 1 evaluations a naive loop would cost (target of
  issue 18: at most 10 at n = 1e5);
* ``boot`` and ``null``: the two parts of ``ci``, the bootstrap of the metrics that get a
  bootstrap interval (those outside :data:`locacal.report.intervals.NORM_METRICS`, which
  take their interval from the null draws and are not bootstrapped; batched from the
  resamples' counts over one shared sort, :mod:`locacal.metrics._bootstrap_statistics`)
  and the null label draws (batched on the shared sort for every metric of the default
  report);

then, at the largest n, the seconds of one evaluation of each metric alone, and of the
batched bootstrap (``boot``) and null draws (``null``) of each metric alone for ``--n-boot``
resamples (where the time goes). Each figure is the least of ``--repeat`` calls (the
machine may be shared: the least is the least disturbed). The first columns are CPU
seconds with one BLAS thread (``threadpoolctl``), where CPU and wall-clock time agree;
the last three repeat the report and the ci report with the default BLAS threads: their
wall-clock ratio (what a user waits) and their CPU ratio. Nothing is asserted: this prints
tables.

**Why one BLAS thread** (found 2026-11-26, after the fourth round below). Until then the
ratio was of CPU seconds with the default BLAS threads (two here). The plain report's
few BLAS calls wake OpenBLAS's second thread, which spins for a while after each call, and
that spinning is counted as CPU time: the plain report at 1e5 took 0.07-0.08 s of CPU but
0.03-0.04 s of wall-clock time, the same as its CPU time with one BLAS thread. The ci
report's resampling runs with one BLAS thread already (``_one_blas_thread``), so its CPU
time was not inflated and the ratio was understated by about 2 at 1e5: the 10-14 plain
reports of the third round and the 7.8-8.0 of the fourth were, measured either with one
BLAS thread or by the wall clock, about 22 and about 15. Every ratio in the rounds below is
the old CPU-with-default-threads one; the table at the end of this docstring is the
corrected before and after.

Measured on the shared two-core machine (load 1 to 8), six runs each of the code before
and after the second round of batching (one BLAS thread for the resampling, CORP and the
AUC from the pairs and runs of labels, shorter smooth-ECE FFTs), alternating in one
session, ``--repeat`` 3 or 5; CPU seconds, range over the runs (the plain report's own
noise moves the ratio most)::

          n  code    report       ci         ci / report  boot       null
        1e4  before  0.033-0.035  0.22-0.29  6.6-8.8      0.07-0.09  0.11-0.12
             after   0.031-0.036  0.17-0.19  4.9-5.7      0.04-0.05  0.10-0.11
        1e5  before  0.051-0.076  1.24-1.46  16-25        0.55-0.66  0.58-0.63
             after   0.052-0.082  0.94-0.97  12-19        0.34-0.37  0.44-0.49

A third round (bootstrap rows drawn as positions in the shared sort, so their counts need
no gather; the AUC from the cumulative counts at the label runs' ends without a cumulative
sum over the runs; fewer passes to build CORP's PAV inputs; one sort shared by the bootstrap
and the null draws; chunks of 2^20 cells instead of 2^22), measured against the code before
it alternately in one session on the same machine, ``--repeat`` 3; CPU seconds, range over
three runs each with ``--sizes 10000 100000`` and six with ``--sizes 100000`` alone (the
plain report at 1e5 takes 0.06 s after the 1e4 runs, 0.073-0.080 s alone; the ratio with
the report alone is the lower one)::

          n  code    report       ci         ci / report  boot       null
        1e4  before  0.033-0.036  0.18-0.19  5.2-5.7      0.048-0.051  0.093-0.097
             after   0.032-0.034  0.15-0.16  4.7-4.8      0.034-0.037  0.087-0.091
        1e5  before  0.059-0.080  0.88-0.98  11.0-16.6    0.31-0.35    0.41-0.45
             after   0.058-0.079  0.80-0.86  10.3-14.4    0.25-0.26    0.40-0.43

Issue 18's target, at most 10 plain reports at 1e5, is still not reached, by 0.3-1.1 plain
reports (0.03-0.08 s of the ci report) with the plain report timed alone: of the ci report's
0.80-0.86 s, the 200 bootstrap index draws with their counts take about 0.06 s and the
200 x 1e5 null labels 0.045 s (1.5 plain reports together), the PAV fits of CORP about
0.26 s (dsc's bootstrap 0.15 s and mcb's null 0.11 s above the draws, each about 0.045 s of
compiled PAV, the rest NumPy passes over the pairs of label runs), the smooth ECE's null
draws 0.18 s (11 bandwidths per draw; per chunk a transposed copy of the labels and, per
node count (six per chunk of draws), a sparse product and an FFT), and the LCS, WMSE, AUC and
adaptive bins together about 0.1 s. Tried in this round and dropped (no gain measured): the
smooth ECE's run totals from integer prefix sums of the labels (halving the sparse product;
the prefix sums cost as much), its spectra only for the rows that reach a node count (the
column gather costs what the product saves), the labels transposed as bytes, float32
uniforms for the null labels (no quicker), chunks of 2^19 cells (10 % slower than 2^20).

A fourth round on the null draws (branch ``cinull``; same draws and seeds, null values equal
to the metric on each draw to 1e-12; measured alternately with the code before it in one
session on the shared machine, load 2-4, three runs each, ``--sizes 100000 --repeat 3``
and ``--sizes 10000 --repeat 3 --no-metrics``; CPU seconds, range over the runs). The
smooth ECE's convolutions are circular of length 2m - 2 (the mirrored masses are periodic;
for odd m a type-I DCT of the m masses) where that length factors into primes up to 19
(1001, 1025, 1281, 2049, 2561, 5121, 10241 and the even 1464 nodes; the others keep the
padded length 3m - 2); its evaluation points'
interpolation is set up once per bandwidth; a bisection step is decided without any
transform where the exact upper bound U = sum_j |r_j| c_j / D (c_j: node j's total weight
over the evaluation points; the kernel and interpolation weights are nonnegative) is below
sigma, which settles sigma = 1 ... 1/32 for null draws at 1e5 (U about 0.023, smECE about
0.006), the value being computed at the end where the search stopped on such a step; its
run totals come from the chunk's running event counts, halving the sparse product. Those
running counts (``locacal.localfit.event_prefix``) are computed once per chunk for the
LCS, WMSE and smooth ECE (and the ECE, QMSE and calib_mse then take their bin sums from
them); the LCS windows once per batch instead of per chunk; the draws, the running counts
and the smooth ECE's transposed labels are written into arrays kept across chunks::

          n  code    report       ci           ci / report  boot         null
        1e4  before  0.033-0.036  0.151-0.170  4.5-4.8      0.034-0.038  0.088-0.100
             after   0.032-0.037  0.132-0.144  3.9-4.4      0.035-0.037  0.068-0.077
        1e5  before  0.079-0.084  0.754-0.799  9.4-10.0     0.249-0.259  0.414-0.434
             after   0.061-0.086  0.668-0.718  8.1-11.8     0.257-0.270  0.328-0.346

    null draws of one metric alone (s)  smece        lcs          wmse         ece
             before                     0.241-0.257  0.076-0.079  0.078-0.082  0.052-0.056
             after                      0.173-0.207  0.064-0.068  0.073-0.078  0.057-0.059

The null draws lose about 0.085 s (0.41-0.43 -> 0.33-0.35 s; the ci report as much), 1.1
plain reports; the bootstrap is unchanged (the other half of this round is its own). Of
what is left of the null draws at 1e5 (cProfile): the draws 0.04 s, CORP's mcb about 0.09 s,
the smooth ECE about 0.13 s (six sparse products per chunk of ten draws, one per node count
the bisections reach, 0.04 s; the transposed labels 0.01-0.02 s; the node masses 0.02 s;
the transforms 0.02 s; the interpolation 0.01 s), the builders of the LCS and WMSE (their
density weights and nearest-neighbour runs, once per report) 0.03 s. Tried and dropped in
this round: the blocked transposition of the labels (no quicker); the smooth ECE's label
shares by ``np.add.reduceat`` on the rows instead of the transposed product (0.45 against
0.29 + 0.13 ms per node count and chunk); uniforms from 32-bit halves of the raw 64-bit
output compared with integer thresholds (0.037 -> 0.024 s for the 200 x 1e5 draws, but
other draws for a seed: not worth a change of the random stream alone).

A fourth round, bootstrap side (branch ciboot; the null draws' side is a separate round):
CORP's PAV inputs pooled beforehand by three rounds of pooling each run of adjacent groups
with non-increasing means (they share their isotonic fit, Barlow et al. 1972, §1.2; exact in
integers), each round halving the groups, for dsc's bootstrap pairs, mcb's null pairs and
tied scores without weights (PAV plus its inputs 0.050 -> 0.026 s per 200 resamples at
1e5); without weights and ties the bootstrap's refinement and its counts of observations,
events and confusion cells read off the runs of labels (no pass over the rows; the matrix
product keeps 4 of its 10 columns), the refinement alone forms no score sums otherwise;
mcb's null runs of events from one pass over the label changes (0.023 -> 0.015 s); nonzero
on bool masks (4x quicker than on the integer weights); a lower peak of the chunk
temporaries (below). Measured alternately with the code before (main at 81245ed) in one
session, ``--repeat 3``, CPU seconds, range over three runs each with ``--sizes 10000
100000`` and three with ``--sizes 100000`` alone (load 0.8-1.0 on the two cores)::

          n  code    report       ci         ci / report  boot         null
        1e4  before  0.032-0.034  0.15-0.18  4.6-5.3      0.034-0.050  0.090-0.093
             after   0.031-0.033  0.14-0.15  4.3-4.4      0.023        0.085-0.088
        1e5  before  0.062-0.076  0.80-0.83  10.6-13.0    0.242-0.257  0.398-0.416
             after   0.059-0.079  0.71-0.73  9.1-12.0     0.175-0.200  0.368-0.416

(1e5 alone: before ci 0.81-0.83 s, 10.6-11.2 plain reports; after 0.71-0.72 s, 9.1-9.7.)
With the null draws' round merged (main at 98d959d, the same session and load): ci
0.71-0.74 -> 0.60-0.62 s, 9.3-9.4 -> 7.8-8.0 plain reports (bootstrap 0.244-0.254 ->
0.169-0.181 s, null draws 0.315-0.317 -> 0.274-0.281 s).

The peak of a chunk's temporaries matters as much as their passes: after the first call,
glibc's dynamic thresholds hand freed memory back to the system when more than about
16 MB lies free at the top of the heap, and the next chunk faults it in again. The pooled
PAV inputs first took isotonic_binary_errors' peak from 15.6 to 16.3 MB for 10 x 1e5
labels, and merged with the null draws' round the ci report then took 90 000 page faults
per call (0.78 s instead of 0.61 s); freeing the label changes before the pooling (11.5
MB), and in CountBatch making and freeing the counts' float copy before the runs and
dropping the cumulative counts once read (32 -> 20.5 MB; main 26.6 MB), brought it back to
4 000-8 000. The per-metric rows run one metric alone, where this still happens (dsc's
bootstrap alone takes 70 000-85 000 faults, before and after: 0.14-0.18 s or 0.29-0.34 s
depending on the allocator's state), so they are only a guide. Tried in this round and
dropped: pooling rounds by ``reduceat`` (cost as much as the PAV they save: 0.049 vs
0.047 s); a fourth pooling round (no gain); scikit-learn's private in-place PAV (0.055 s vs
scipy's 0.044 s on these inputs); one PAV call per chunk with the rows offset apart
(0.046-0.049 vs 0.044 s); the counts as floats to save the conversion for the product (the
integer cumulative sum from floats costs more: 0.070-0.076 vs 0.066-0.072 s); run counts by
``reduceat`` over the rows (0.086 vs 0.013 s); the null labels' runs of events from two
``flatnonzero``, of rises and of falls (0.021 s; the one pass over the changes 0.015 s,
before 0.023 s); work buffers kept across chunks for the counts, their float copy and
their cumulative sum (no fewer page faults: the smaller temporaries made them).

**The fourth round corrected** (the table's first columns, one BLAS thread; main at
81245ed before the round against main after both halves, alternately in one session, two
runs each with ``--repeat 3 --no-metrics``, load 0.8; CPU seconds, range over the runs;
in brackets the wall-clock ratio with the default BLAS threads)::

          n  code    report       ci           ci / report          boot         null
        1e4  before  0.033-0.035  0.156-0.158  4.5-4.7  (6.0)       0.034-0.035  0.085-0.093
             after   0.032        0.113-0.119  3.5-3.7  (4.7)       0.022-0.023  0.066-0.068
        1e5  before  0.032-0.033  0.693-0.740  21.5-22.3 (21.3-22.0) 0.250-0.261  0.391-0.438
             after   0.031-0.033  0.500-0.508  15.3-15.9 (15.2-15.7) 0.176-0.181  0.284-0.286

**Issue 18's target, at most 10 plain reports at 1e5, is not met**: 15 plain reports (the
old CPU ratio with two BLAS threads reads 9.6-10.5). The plain report at 1e5 costs about
what it costs at 1e4 (0.03 s: its fixed grids and bandwidth searches dominate), so the
target asks for the 400 resamples of 1e5 rows in 0.3 s, about 8 ns per row and resample
for the draws and every metric. The resamples cost 0.46 s: drawing the 200 x 1e5 row
positions and their counts 0.05 s, the 200 x 1e5 null labels 0.04 s, the smooth ECE's
null draws 0.13 s (its bandwidth search: five node grids per draw below the bound's
reach), CORP's PAV fits and their inputs about 0.08 s, the LCS, WMSE, AUC, refinement,
bins and the chunks' own passes the rest. Running the bootstrap and the null draws in two
threads was measured too (same draws): wall 0.43 -> 0.35 s, CPU 0.43 -> 0.50 s (the GIL
and both threads' page faults), not enough for the target by the wall clock either.

A fifth round, draws side (branch ``cidraws``; the smooth ECE's, LCS's and WMSE's null
batches were a separate round). **The null labels are other draws for a seed**: D*_i =
1{U_i < ceil(s_i 2^32)} for 32-bit uniforms U_i drawn a byte at a time (the top byte of U_i
decides unless it equals the threshold's, probability 1/256, and then 24 more bits do), the
same law as whole 32-bit uniforms, Bernoulli(ceil(s 2^32) / 2^32), 0 for s = 0, 1 for s = 1;
the bytes are those of the bit generator's raw 64-bit outputs (PCG64 and the other 64-bit
generators; ``rng.integers`` otherwise), compared in integers straight into the float
labels: 200 x 1e5 labels 0.038 s (uniform floats compared with the scores) -> 0.025 s
(32-bit halves of the raw outputs) -> 0.012 s (bytes). The bootstrap draws the same
positions as before; ``sorted_order`` uses NumPy's default sort of its 64-bit keys (0.9 ms
against 5.9 ms for the stable sort at 1e5), so rows equal in score, label and weight come
in that sort's order (they differ at most in ``true_p``). Same values otherwise: CountBatch
keeps the runs of labels as two contiguous arrays (the runs of events and of non-events
after them) instead of one array of all runs, computes the AUC and the refinement before
CORP and frees the cumulative counts (whole, then at the runs' ends) before its PAV inputs
(the chunk's peak 19.6 -> 14.2 MB), reads the refinement's one resample size without row
copies, forms the per-row products only when read and one log a row for the log loss (200
resamples of the report's bootstrap metrics at 1e5: 0.094-0.097 -> 0.083-0.085 s, no page
faults); the pooling of the PAV inputs takes instead of fancy indexing and differences
without ``diff``'s copy (about 0.0015 s per 200 fits, bootstrap and mcb's null each); the
bootstrap's chunks share one array. Measured alternately with main (at ba9dd78) in one
session on the shared two-core machine (load 1.1-3.1, the other helper's runs), six runs
each with ``--repeat 3 --no-metrics``; CPU seconds with one BLAS thread, range over the
runs::

          n  code    report       ci           ci / report  boot         null
        1e4  before  0.033-0.038  0.113-0.126  3.2-3.8      0.022-0.027  0.066-0.078
             after   0.032-0.035  0.113-0.126  3.4-3.9      0.021-0.023  0.062-0.071
        1e5  before  0.033-0.034  0.493-0.529  14.7-16.0    0.170-0.188  0.270-0.308
             after   0.032-0.034  0.428-0.486  13.0-14.4    0.150-0.186  0.258-0.316

(medians at 1e5: ci 0.514 -> 0.466 s, about 0.05 s or 1.4 plain reports; at 1e4 no
difference beyond the noise.) Issue 18's target is still not met. Of the bootstrap's
0.15-0.17 s at 1e5, the 200 x 1e5 row positions take 0.029 s and their counts 0.024 s
(``rng.integers`` and ``np.bincount`` at 1.5 and 1.2 ns a draw: nothing in NumPy draws
them cheaper with the same law), CountBatch 0.083 s (CORP dsc's pooling and PAV 0.033 s,
the matrix product and its float copy 0.013 + 0.005 s, the cumulative counts and the runs
0.015 s, the refinement, AUC and label counts the rest). Tried in this round and dropped:
row positions as uint32 (0.0325 against 0.0321 s: NumPy draws int64 below 2^32 by the same
32-bit path; ``bincount`` would then cast them); one ``bincount`` per chunk over offset
positions (0.084-0.097 against 0.060 s, its 8 MB of counts out of cache); ``np.add.at``
(0.024 s, as ``bincount``); unit float weights to ``bincount`` for float counts (0.028
against 0.024 s); the product as four matrix-vector products (0.0069 against 0.0079 s in
isolation, not worth it); int32 counts (their cumulative sum no quicker, 0.0051 against
0.0055 s); float means instead of integer cross-products in the pooling (slower: 0.037 and
0.043 against 0.035 and 0.041 s for the bootstrap's and mcb's PAV inputs); ``np.compress``
on the bool masks instead of ``flatnonzero`` and ``take`` for dsc's non-empty pairs and
the pooled runs' ends (2.6x quicker on a mask with 37 % random zeros, where
``flatnonzero`` mispredicts branches, but slower on the real masks: 0.039-0.040 against
0.036-0.037 s); the float labels compared into the padded bool labels of mcb's null in one
pass (0.0056 against 0.0062 s, within the noise); a first layout keeping the contiguous
runs of events beside the array of all runs (the same peak, but 80 000 page faults per
200 resamples from where the allocations fell: 0.21 s against 0.09 s). Not tried: scipy's
``isotonic_regression`` costs about 15 us a call around its compiled PAV (0.006 s for the
ci report's 400 fits), which only its private function would save.

A fifth round on the null draws (branch ``cismece``; same draws and seeds, null values
equal to the metric on each draw to 1e-12). The smooth ECE's label shares of each node's
run come from one pass over a chunk for every node count: 64-bit integer running sums of
v_i y_i with v_i = s_i 2^53 rounded, read over pieces of at most 256 rows of a run, where
sum_piece y_i ((m - 1) v_i - k 2^53) is exact modulo 2^64 and below 2^63, i.e. sum frac_i
y_i to (m - 1) 2^-54 per row (the metric's own rounding of s_i (m - 1)); this replaces the
transposed copy of the labels and one sparse product per node count (six a chunk), and its
0/1 labels are taken back from the running event counts (0.18 ms for 10 x 1e5 against 0.33
ms for the cast of the float labels). Its node grids are built in 0.3 ms instead of 1.5 ms
(pieces from the run lengths, the unit node mass by ``reduceat``) and each bandwidth in
0.24 ms instead of 0.5 ms (the score density's sum D from the route's own transforms
against the nodes' interpolation weights); each node count's masses and spectra are formed
for the rows that reach it only (at 1e5 the last step's 1464 and 2049 nodes serve 128 and
72 of 200 draws: 0.071-0.077 -> 0.066-0.072 s for 200 draws). WMSE's nearest-neighbour
runs without weights (its metric and its null builder) find the distance h as the k-th
smallest of the left and right distances by one vectorised bisection, min_i max(L_i,
R_{k-i}), instead of a bisection inside a bisection (the same floating-point distances, so
the same runs: 12.8 -> 0.8 ms for 101 points at 1e5). Spiegelhalter's z (and mcb's Brier
term) multiply the labels by BLAS when it runs with one thread (0.09 against 0.49 ms for
10 x 1e5 by ``einsum``, and nearer the metric: 1.3e-13 against 6.7e-13 at 1e5); ``einsum``
stays with more threads, whose idle spinning cost 1.4 ms of CPU a call. Measured
alternately in one session on the shared machine, three runs each of ``--repeat 3
--no-metrics`` (load 0.9-1.1): the code before (main at ba9dd78) against this branch, and
main after the draws' round (1c254f2, branch ``cidraws``) against it with this round's
``locacal`` changes applied (the merge); CPU seconds with one BLAS thread, range over the
runs; in brackets the wall-clock ratio with the default BLAS threads::

          n  code          report       ci           ci / report            boot         null
        1e4  ba9dd78       0.033-0.034  0.115-0.127  3.5-3.8  (4.6-4.7)     0.023-0.024  0.065-0.070
             this round    0.025-0.026  0.096-0.139  3.7-5.5  (5.1-5.4)     0.023-0.033  0.054-0.056
             1c254f2       0.031-0.035  0.112-0.118  3.4-3.6  (4.5-4.7)     0.021-0.023  0.062-0.070
             merged        0.023-0.029  0.087-0.099  3.3-3.7  (4.7-5.2)     0.020-0.022  0.048-0.055
        1e5  ba9dd78       0.033-0.034  0.515-0.532  15.5-16.1 (15.0-16.4)  0.181-0.285  0.291-0.296
             this round    0.023        0.432-0.461  18.6-19.8 (18.2-18.7)  0.181-0.189  0.231-0.234
             1c254f2       0.032-0.034  0.437-0.471  13.1-14.3 (13.6-13.9)  0.149-0.165  0.252-0.266
             merged        0.022-0.024  0.369-0.409  16.6-17.0 (15.9-17.3)  0.151-0.164  0.195-0.225

(At 1e4 the ci report of this round took 0.096-0.098 s in two runs and 0.139 s in one, its
bootstrap alone then 0.033 s, though this round does not touch the bootstrap (an earlier
session: 0.101 s once, 0.131-0.133 s twice): the allocator's state after the ci call, as
described below; in a loop of ci reports and bootstraps at 1e4 the ci report takes
0.102-0.105 s against 0.121-0.123 s before, the bootstrap 0.024 s both.)

    one component alone at 1e5 (s; two runs each)        ba9dd78        this round
        smooth ECE statistic, 200 draws (draws excluded)  0.097-0.099    0.066-0.069
        smooth ECE null draws alone (null_values) *       0.185-0.206    0.143-0.166
        WMSE null builder                                 0.0139-0.0142  0.0054
        Spiegelhalter statistic, 200 draws                0.0073-0.0074  0.0046
        WMSE and Spiegelhalter null draws alone           0.079-0.081    0.069-0.072
        CORP mcb statistic, 200 draws                     0.049-0.050    0.049

    (* four runs each in two sessions, the second busier: 0.201-0.206 against 0.165)

At 1e5 the null draws lose 0.06 s and the ci report 0.07-0.08 s (the same 4 000-6 500 page
faults a call); merged with the draws' round, ci 0.369-0.409 s against 0.515-0.532 s
before both, the null draws 0.195-0.225 s against 0.291-0.296 s. The plain report itself
loses 0.010 s (WMSE's nearest-neighbour runs), so the ratio rises: 18.6-19.8 plain reports
at 1e5 (16.6-17.0 merged), the target of 10 further off in this measure though every call
is quicker. mcb's Brier term by BLAS gains nothing measurable (its PAV fits dominate).
Tried in this round and dropped: two levels of integer running sums (exact without pieces,
two passes: about 1.8 ms a chunk from the timed passes, against 0.65 ms for one level with
pieces); a float running sum of s_i y_i, even split exactly (NumPy's float accumulation
along a row is not vectorised: 2.7-2.9 ms for 10 x 1e5 against 0.4 ms for an integer one);
the piece sums by ``np.add.reduceat`` over the union of every node count's pieces (1.0 ms
against 0.26 ms for the integer running sum) or one gather at that union instead of one
per node count (0.64 against 0.61 ms, cold caches); the running sums transposed, (n + 1,
B), for contiguous gathers (3.7 ms to build against 1.1 ms); the evaluation points'
interpolation as a sparse matrix (0.043 against 0.073 ms a call alone, no gain measured in
the batch); ``np.take`` instead of fancy indexing for the binned, LCS and WMSE window sums
(no gain beyond the noise); BLAS for the density's direct kernel sums of the LCS and WMSE
builders (the sliding-window rows are copied first: 11.9 against 8.2 ms for the KDE at
1e5). Not tried for lack of time: a tighter exact bound to settle sigma = 1/64 (it would
save the m = 1001 transforms, about 0.1 ms a chunk). What is left of the smooth ECE's null
draws at 1e5 (about 3.4 ms a chunk of ten): the integer running sums 0.65 ms, the gathers
at the pieces' ends about 0.6 ms (cold caches), per node count (six, two of them for some
rows) the masses, transforms, bound and interpolation about 0.3 ms.

**Where it stands** (main after both halves of the fifth round, three runs of ``--repeat 3
--no-metrics`` on a quiet machine, load 0.9-1.3; CPU seconds with one BLAS thread; in
brackets the wall-clock ratio with the default threads): at 1e5 the report takes
0.022-0.023 s and the ci report 0.371-0.388 s, **16.1-16.8 plain reports** (16.2-17.2);
at 1e4 0.025-0.028 and 0.089-0.095 s, 3.3-3.6 (4.9-5.1). Before the fourth and fifth
rounds (main at 81245ed, the same measure) the ci report took 0.69-0.74 s at 1e5 against
0.032-0.033 s, 22 plain reports: the ci report is about twice as quick, the plain report
30 % quicker, and issue 18's 10 plain reports, 0.23 s now, is not reached. A first call
in a fresh process (allocator thresholds still low) takes 0.41-0.44 s at 1e5, 15 plain
reports' first call.

Usage: ``python benchmarks/bench_report_ci.py [--sizes 10000 100000] [--n-boot 200]
[--repeat 3] [--no-metrics]``
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from locacal import calibration_report
from locacal._validation import CalibrationWarning
from locacal.metrics.registry import evaluate
from locacal.report.intervals import (
    NORM_METRICS,
    NULL_METRICS,
    bootstrap_replicates,
    null_values,
)
from locacal.report.table import REPORT_COLUMNS
from locacal.simulate import logistic_dgp

REPEAT = 1
#: The report's metrics, and those of them that get a bootstrap interval (the others take
#: theirs from the null draws).
NAMES = [m for m in REPORT_COLUMNS if m not in ("n", "true_mse")]
BOOT_NAMES = [m for m in NAMES if m not in NORM_METRICS]


def timed(func, *args, **kwargs) -> tuple[float, float]:
    """(CPU seconds, wall-clock seconds) of the call, each the least of ``REPEAT`` calls."""
    cpu = wall = float("inf")
    for _ in range(REPEAT):
        start, clock = time.process_time(), time.perf_counter()
        func(*args, **kwargs)
        cpu = min(cpu, time.process_time() - start)
        wall = min(wall, time.perf_counter() - clock)
    return cpu, wall


def _sizes_table(sizes: list[int], n_boot: int) -> None:
    """The report and the ci report at each n: CPU seconds with one BLAS thread, and
    wall-clock and CPU seconds with the default BLAS threads."""
    print(f"calibration_report with ci=True, n_boot = {n_boot} (seconds; 2 n_boot + 1 = "
          f"{2 * n_boot + 1} evaluations for a naive loop)")
    print("              one BLAS thread (CPU)                         "
          "default BLAS threads (wall; CPU)")
    print("       n    report        ci   ci / report      boot      null"
          "    report        ci  ci / report   CPU: ci / report")
    for n in sizes:
        d = logistic_dgp(n, seed=1)
        s, y = d["score"].to_numpy(), d["label"].to_numpy()
        with threadpool_limits(limits=1, user_api="blas"):
            plain = timed(calibration_report, s, y)[0]
            ci = timed(calibration_report, s, y, ci=True, n_boot=n_boot, seed=2)[0]
            boot = timed(bootstrap_replicates, BOOT_NAMES, s, y, weights=None, true_p=None,
                         threshold=0.5, n_boot=n_boot, rng=np.random.default_rng(3),
                         tick=lambda: None)[0]
            null = timed(null_values, NAMES, s, weights=None, threshold=0.5,
                         n_draws=n_boot, rng=np.random.default_rng(4), tick=lambda: None)[0]
        plain_cpu, plain_wall = timed(calibration_report, s, y)
        ci_cpu, ci_wall = timed(calibration_report, s, y, ci=True, n_boot=n_boot, seed=2)
        print(f"{n:8d}  {plain:8.3f}  {ci:8.3f}   {ci / plain:11.1f}  {boot:8.3f}  "
              f"{null:8.3f}  {plain_wall:8.3f}  {ci_wall:8.3f}  {ci_wall / plain_wall:11.1f}"
              f"   {ci_cpu / plain_cpu:16.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--no-metrics", action="store_true",
                        help="leave out the table of each metric alone")
    parser.add_argument("--repeat", type=int, default=3,
                        help="time each call this many times and keep the least")
    args = parser.parse_args()
    global REPEAT
    REPEAT = max(args.repeat, 1)
    warnings.simplefilter("ignore", CalibrationWarning)
    calibration_report(*[logistic_dgp(500, seed=0)[c] for c in ("score", "label")])  # imports
    _sizes_table(args.sizes, args.n_boot)
    if args.no_metrics:
        return
    n = max(args.sizes)
    d = logistic_dgp(n, seed=1)
    s, y = d["score"].to_numpy(), d["label"].to_numpy()
    print(f"\nEach metric alone at n = {n:,} (seconds): one evaluation, its {args.n_boot} "
          "bootstrap resamples, its null draws")
    for name in REPORT_COLUMNS:
        if name == "true_mse":
            continue
        with threadpool_limits(limits=1, user_api="blas"):
            _metric_row(name, s, y, args.n_boot)


def _metric_row(name: str, s: np.ndarray, y: np.ndarray, n_boot: int) -> None:
    """One metric alone, CPU seconds: one evaluation, its bootstrap, its null draws."""
    one = timed(evaluate, [name], s, y)[0]
    boot = (timed(bootstrap_replicates, [name], s, y, weights=None, true_p=None,
                  threshold=0.5, n_boot=n_boot, rng=np.random.default_rng(3),
                  tick=lambda: None)[0] if name in BOOT_NAMES else float("nan"))
    null = (timed(null_values, [name], s, weights=None, threshold=0.5, n_draws=n_boot,
                  rng=np.random.default_rng(4), tick=lambda: None)[0]
            if name in NULL_METRICS else float("nan"))
    print(f"{name:<16s} {one:8.4f}  boot {boot:6.3f}  null {null:6.3f}")


if __name__ == "__main__":
    main()
