"""Every kind of message Balcão sends has a name people read (/meusdados lists what was sent to them)."""

from notifications.kind_labels import KIND_LABELS
from notifications.plugins import load_all
from notifications.rendering import KINDS


def test_every_registered_message_kind_has_a_name() -> None:
    load_all()
    # the application's kinds (a test module may register kinds of its own, "test.…", in the same registry)
    ours = {name for name, kind in KINDS.items() if kind.render.__module__.startswith("notifications.")}
    assert ours - set(KIND_LABELS) == set()
    assert set(KIND_LABELS) - ours == set()  # no name of a kind that is gone
