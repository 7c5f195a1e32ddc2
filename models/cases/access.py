"""Who reads what, inside one municipality: each staff role against each kind of case.

A role is held in a municipality (CF Art. 30); inside it, a case and its author are read only by the staff whose
work the case is (LGPD Art. 6 III, necessidade; Art. 46, acesso não autorizado), which is what the author is told
("os servidores que cuidam do seu caso veem seu nome"):

=================  ===============  ============  =====================  =====================
role               representação    ride-hailing  ouvidoria identified   ouvidoria restricted
=================  ===============  ============  =====================  =====================
admin              case + author    case + author case + author          nothing
clerk              case + author    nothing       nothing                nothing
inspector          nothing          case + author nothing                nothing
ombudsman          nothing          nothing       case + author          case + author
=================  ===============  ============  =====================  =====================

- A representação is the clerk's (CP Art. 31: the author's identification is part of the petition that the
  authority judges, CP Art. 32); the inspector acts on the decision through the hand-over, which carries no author
  (:class:`models.cases.handling.NoticeHandover`).
- A ride-hailing report is the inspector's (L1533 Art. 13, 14: the inspection body).
- An ombudsman case is the Ombudsman's (L13460 Art. 13, 14: the ouvidoria receives and answers); one whose
  author restricted their identity is the Ombudsman's alone, admins included (L13460 Art. 10 §7), and to
  anyone else it does not exist.
- Admins may work every queue but the restricted one (they run the city hall's service, CF Art. 30).

A staff member proven only by the deployment-wide staff API token (not their own credential) reads no restricted
case, author or file: nothing proves they are the Ombudsman (L13460 Art. 10 §7).
"""

from __future__ import annotations

import enum

from models.cases.tables import HANDLING_ROLE, Case, CaseKind
from models.people import PermissionDenied, Role


class Reading(enum.Enum):
    """How much of a case a role reads."""

    NOTHING = "nothing"
    """The case is not theirs: refused (a restricted one answers as a protocol that does not exist)."""
    FULL = "full"
    """The case, its files, its timeline and who filed it."""


class CaseNotReadable(PermissionDenied):
    """The case is of this municipality but not of the member's role (LGPD Art. 6 III)."""


def restricted_to_ombudsman(case: Case) -> bool:
    """Whether the case, its files and their names are the Ombudsman's alone (L13460 Art. 10 §7)."""
    return case.kind is CaseKind.OMBUDSMAN and case.identity_restricted


def reading(case: Case, role: Role, *, identity_proven: bool = True) -> Reading:
    """What a staff member of ``role`` in the case's municipality reads of it (the table of this module).

    Args:
        case: the case.
        role: the member's role in the case's municipality.
        identity_proven: False when the caller is proven only by the shared staff API token.
    """
    if restricted_to_ombudsman(case):  # L13460 Art. 10 §7
        return Reading.FULL if role is Role.OMBUDSMAN and identity_proven else Reading.NOTHING
    if role is Role.ADMIN or role is HANDLING_ROLE[case.kind]:  # LGPD Art. 6 III: the staff whose work it is
        return Reading.FULL
    return Reading.NOTHING
