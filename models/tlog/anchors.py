"""The newest signed head against the log and what is kept outside the server (part of ``notice verify``).

The current head must be the newest the head job kept (``tlog_head``); entries past it may wait for the next head
for less than the maximum merge delay; the witness's newest head must not be newer than the log's; and with a TSA
configured the newest head older than the merge delay must carry a valid RFC 3161 token dated no earlier than it.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Connection

from core.i18n import N_
from models.tlog.heads import TreeHead
from models.tlog.report import LogReport, Problem
from models.tlog.signing import waiting
from models.tlog.timestamps import TimestampError, check_token

TSA_ACCURACY_MS = 5 * 60 * 1000  # a TSA's clock and this server's may differ by this much (and genTime is in s)


def check_kept(kept: list[TreeHead], current: TreeHead, report: LogReport) -> None:
    """The current head must be the newest the job signed and kept (``tlog_head``)."""
    if not current.tree_size and not kept:
        return
    newest = kept[-1] if kept else None
    if newest is None or (newest.tree_size, newest.root_hash, newest.timestamp, newest.signature) != (
            current.tree_size, current.root_hash, current.timestamp, current.signature):
        report.problems.append(Problem(
            f"tree head (size {current.tree_size})",
            N_("the current tree head is not the newest signed head kept (size {size}): the head was changed or "
               "rolled back"), {"size": newest.tree_size if newest else 0}))


def check_waiting(connection: Connection, current: TreeHead, now: dt.datetime, max_merge_delay: dt.timedelta,
                   report: LogReport) -> None:
    """Entries past the current head: integrated, waiting for the next head, for less than the merge delay."""
    pending = waiting(connection, current.tree_size)
    if pending is None:
        return
    waited_ms = None if pending.since is None else int(now.timestamp() * 1000) - pending.since
    if waited_ms is None or waited_ms > max_merge_delay.total_seconds() * 1000:
        report.problems.append(Problem(
            f"tlog_entry {pending.first_index}",
            N_("{count} entries wait for a signed head for longer than the maximum merge delay of {limit} s (the "
               "head job does not run, or the signed heads were rolled back)"),
            {"count": pending.entries, "limit": int(max_merge_delay.total_seconds())}))


def check_anchors(kept: list[TreeHead], current: TreeHead, witness: TreeHead | None, require_timestamp: bool,
                   fresh_after: int, report: LogReport) -> None:
    """The newest head against what is kept outside the server: the witness's newest head and the TSA's token.

    ``fresh_after``: a newest head signed after this moment (ms) may still lack its token (the job retries).
    """
    if witness is not None and witness.tree_size > current.tree_size:
        report.problems.append(Problem(
            f"witness (size {witness.tree_size})",
            N_("the witness holds a newer head ({size} entries) than this log ({current}): the log was rolled back "
               "(restored from an earlier backup) or truncated"),
            {"size": witness.tree_size, "current": current.tree_size}))
    if witness is not None and kept and witness.timestamp > kept[-1].timestamp:
        report.problems.append(Problem(
            f"witness (size {witness.tree_size})",
            N_("the witness holds a head signed after this log's newest signed head: the signed heads were rolled "
               "back")))
    if not require_timestamp or not kept:
        return
    newest = kept[-1]
    if newest.tsa_token is None and newest.timestamp > fresh_after:  # young: the job asks the TSA again
        stamped = [head for head in kept if head.tsa_token is not None]
        if not stamped:
            return
        newest = stamped[-1]
    where = f"signed head (size {newest.tree_size})"
    if newest.tsa_token is None:
        report.problems.append(Problem(where, N_("the newest signed head has no RFC 3161 timestamp although "
                                                 "BALCAO_TSA_URL is set (the timestamp authority did not answer "
                                                 "for longer than the merge delay)")))
        return
    try:
        stamp = check_token(newest.tsa_token, newest.signed_bytes())
    except TimestampError:
        return  # named by the head's own check
    if stamp.gen_time.timestamp() * 1000 + TSA_ACCURACY_MS < newest.timestamp:
        report.problems.append(Problem(where, N_("the head claims a moment after its RFC 3161 timestamp (it was "
                                                 "signed again with another date)")))
