"""Fixtures of the cases tests: the people (see ``tests.auxil.case_people``)."""

from __future__ import annotations

import pytest
from sqlmodel.ext.asyncio.session import AsyncSession

from tests.auxil.case_people import Cast, make_cast


@pytest.fixture
async def cast(session: AsyncSession) -> Cast:
    return await make_cast(session)
