"""Install the system packages the tests need (headless Chromium, its driver, npm, pdfsig, zbarimg), when we can.

Run by ``make test`` before pytest. As root (CI, fresh machines) it installs Debian's ``chromium``,
``chromium-driver``, ``npm`` and ``libimage-exiftool-perl`` if they are
missing; otherwise it only says what is missing (the browser test then
skips outside CI and fails in CI).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

PACKAGES = {
    "chromium": "chromium", "chromedriver": "chromium-driver", "npm": "npm",  # npm: axe-core (make axe)
    "pdfsig": "poppler-utils",  # the independent check of the PDFs' PAdES signatures
    "pdftotext": "poppler-utils",  # what a notice's PDF says, read independently of reportlab
    "zbarimg": "zbar-tools",  # reads the PIX QR codes back from the images
    "exiftool": "libimage-exiftool-perl",  # writes real metadata for the upload tests
}


def main() -> int:
    """Install what is missing; always exit 0 unless an install was attempted and failed."""
    missing = [package for binary, package in PACKAGES.items() if shutil.which(binary) is None]
    if not missing:
        return 0
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        print(f"note: {', '.join(missing)} missing; the tests that need them are skipped (install them)")
        return 0
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing], check=True, env=env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
