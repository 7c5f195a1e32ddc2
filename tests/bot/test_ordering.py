"""Per-person update ordering (bot/ordering.py): one person's updates in arrival order, other people meanwhile."""

import asyncio

from telegram import Update

from bot.ordering import PerPersonUpdateProcessor


def _update(update_id: int, user_id: int) -> Update:
    user = {"id": user_id, "is_bot": False, "first_name": "P"}
    message = {"message_id": update_id, "date": 0, "chat": {"id": user_id, "type": "private"}, "from": user,
               "text": "x"}
    return Update.de_json({"update_id": update_id, "message": message}, None)


async def test_one_persons_updates_wait_for_each_other_and_another_person_is_not_held_up() -> None:
    processor = PerPersonUpdateProcessor(max_running=4)
    log: list[str] = []
    release = asyncio.Event()

    async def handle(name: str, *, wait: bool = False) -> None:
        log.append(f"start {name}")
        if wait:
            await release.wait()
        log.append(f"end {name}")

    async with processor:
        first = asyncio.create_task(processor.process_update(_update(1, 7), handle("a1", wait=True)))
        second = asyncio.create_task(processor.process_update(_update(2, 7), handle("a2")))
        other = asyncio.create_task(processor.process_update(_update(3, 8), handle("b1")))
        await other  # the other person is answered while the first person's first update still runs
        assert log == ["start a1", "start b1", "end b1"]
        assert processor.people_in_flight == 1
        release.set()
        await asyncio.gather(first, second)
    assert log[3:] == ["end a1", "start a2", "end a2"]
    assert processor.people_in_flight == 0  # nothing is kept for people who are idle


async def test_waiting_updates_hold_no_running_slot() -> None:
    """Ten photos of one album wait their turn without stopping a second person (one slot only)."""
    processor = PerPersonUpdateProcessor(max_running=1)
    release = asyncio.Event()
    done: list[int] = []

    async def handle(number: int, *, wait: bool = False) -> None:
        if wait:
            await release.wait()
        done.append(number)

    async with processor:
        album = [asyncio.create_task(processor.process_update(_update(n, 7), handle(n, wait=n == 1)))
                 for n in range(1, 11)]
        await asyncio.sleep(0)
        release.set()
        other = asyncio.create_task(processor.process_update(_update(99, 8), handle(99)))
        await asyncio.gather(*album, other)
    assert [n for n in done if n != 99] == list(range(1, 11))
    assert done.index(99) < 10  # the other person did not wait for the whole album
