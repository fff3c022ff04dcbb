"""Positions with their true outcome, for fitting the 字牌 strong policy's models. Kernels only.

When the 字牌 loop is given an observation buffer (``obs``, int64 ``(rows, OBS_W)``, more
than one row), it writes two kinds of rows while the bots play, without changing any
decision or record (the checks only read the state, and draw from no stream):

- ``O_HAND`` after each discard of a non-random seat: the seat, whether it deals, the
  stock left, the hand's distance after the discard, its certain 胡息, its red cards,
  its table groups, its live outs (the unseen cards that would complete it, 0 when it
  does not wait), and at the end of the deal whether the seat won, the points it won
  and how, and what the deal's win was made of (its 胡息, 醒 and patterns);
- ``O_DANGER`` before one discard in two (the deal's discard count, which depends on
  nothing the bots see): for each opponent and each free kind the discarding seat
  holds, the danger features (engine.zipai.strong.danger_features) and the true label,
  whether the opponent could win on that card now (the loop's own completion check).

Row 0 is a header: ``[next row, deals seen, first row of the current deal, rows
dropped]``. Rows past the buffer's end are dropped and counted in ``obs[0, 3]``.
"""

from __future__ import annotations

from engine.jit.njit import kernel

OBS_W = 24
"""Columns of an observation row."""
O_HAND = 1
O_DANGER = 2
# hand rows: type, deal, seat, dealer, live, d, huxi, red, ntab, won, gain, win type, outs,
# and of the deal's win: its 胡息, 醒 (跟醒), 醒 of a random kind x 100, pattern bits
H_SEAT, H_DEALER, H_LIVE, H_D, H_HUXI, H_RED, H_NTAB, H_WON, H_GAIN, H_HOW, H_OUTS = range(2, 13)
H_FHX, H_FXG, H_FXR, H_FBITS = range(13, 17)
# danger rows: type, deal, seat, opponent, kind, win label, n features, features
D_OPP, D_KIND, D_WIN, D_NF, D_F = 3, 4, 5, 6, 7


@kernel(refcount=False)
def obs_row(obs):
    """The next free row of ``obs`` (-1 when full: the row is counted as dropped)."""
    r = obs[0, 0]
    if r >= obs.shape[0]:
        obs[0, 3] += 1
        return -1
    obs[0, 0] = r + 1
    obs[r, 1] = obs[0, 1]
    return r


@kernel(refcount=False)
def observe_hand(obs, seat, dealer, live, d, huxi, red, ntab, outs):
    """An O_HAND row for ``seat`` having discarded (its state after the discard; ``outs``
    its live outs, 0 when it does not wait).
    """
    r = obs_row(obs)
    if r < 0:
        return
    obs[r, 0] = O_HAND
    obs[r, H_SEAT] = seat
    obs[r, H_DEALER] = dealer
    obs[r, H_LIVE] = live
    obs[r, H_D] = d
    obs[r, H_HUXI] = huxi
    obs[r, H_RED] = red
    obs[r, H_NTAB] = ntab
    obs[r, H_WON] = 0
    obs[r, H_GAIN] = 0
    obs[r, H_HOW] = -1
    obs[r, H_OUTS] = outs


@kernel(refcount=False)
def observe_danger(obs, seat, opp, k, label, fi, n):
    """An O_DANGER row: discarding seat, opponent, kind, true label, features."""
    r = obs_row(obs)
    if r < 0:
        return
    obs[r, 0] = O_DANGER
    obs[r, 2] = seat
    obs[r, D_OPP] = opp
    obs[r, D_KIND] = k
    obs[r, D_WIN] = label
    obs[r, D_NF] = n
    for i in range(n):
        obs[r, D_F + i] = fi[i]


@kernel(refcount=False)
def observe_outcome(obs, winner, rec_delta, how, huxi, xing, xrand100, bits):
    """Label the O_HAND rows of the deal just played: winner, points won, win type, and
    what the win was made of (its 胡息, its 醒 under 跟醒, the 醒 a kind turned up at
    random would give x 100, its pattern bits; 0 on a 黄庄).
    """
    if obs.shape[0] <= 1:
        return
    for r in range(obs[0, 2], min(obs[0, 0], obs.shape[0])):
        if obs[r, 0] == O_HAND:
            s = obs[r, H_SEAT]
            obs[r, H_WON] = 1 if s == winner else 0
            obs[r, H_GAIN] = rec_delta[s] if s == winner else 0
            obs[r, H_HOW] = how
            obs[r, H_FHX] = huxi
            obs[r, H_FXG] = xing
            obs[r, H_FXR] = xrand100
            obs[r, H_FBITS] = bits
    obs[0, 1] += 1
    obs[0, 2] = obs[0, 0]
