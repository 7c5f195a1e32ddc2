"""Install the system packages the tests need (headless Chromium and its driver), when we can.

Run by ``make test`` before pytest. As root (CI, fresh machines) it installs Debian's ``chromium`` and
``chromium-driver`` if they are missing; otherwise it only says what is missing (the browser test then
skips outside CI and fails in CI). It also installs axe-core (the accessibility checker the console's browser tests
inject) from the npm registry into ``tests/auxil/node_modules`` (not in git), Debian's ``npm`` first if needed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

PACKAGES = {"chromium": "chromium", "chromedriver": "chromium-driver", "npm": "npm"}
AXE_VERSION = "4.14.1"
AUXIL = Path(__file__).resolve().parent
AXE = AUXIL / "node_modules" / "axe-core" / "axe.min.js"


def install_axe() -> int:
    """axe-core, pinned, into tests/auxil/node_modules (skipped when already there or npm is missing)."""
    if AXE.exists() or shutil.which("npm") is None:
        return 0
    command = ["npm", "install", "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--prefix", str(AUXIL),
               f"axe-core@{AXE_VERSION}"]
    return subprocess.run(command, check=False).returncode


def main() -> int:
    """Install what is missing; always exit 0 unless an install was attempted and failed."""
    missing = [package for binary, package in PACKAGES.items() if shutil.which(binary) is None]
    if not missing:
        return install_axe()
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        print(f"note: {', '.join(missing)} missing; the browser test will be skipped (install them to run it)")
        return install_axe()
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing], check=True, env=env)
    return install_axe()


if __name__ == "__main__":
    sys.exit(main())
