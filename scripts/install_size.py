"""The install size of a run's dependencies and of the tests' (docs/testing.md#install-size).

Makes a fresh virtual environment in a temporary folder, installs requirements.txt into it and
measures its site-packages, then installs requirements-test.txt on top and measures again. It needs
the package index (pip's own settings); nothing is installed outside the temporary folder.

    python -m scripts.install_size
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def tree_bytes(folder: Path) -> int:
    """Bytes of every regular file under folder (what `du --apparent-size` counts, links once)."""
    seen, total = set(), 0
    for directory, _, files in os.walk(folder):
        for name in files:
            status = os.lstat(os.path.join(directory, name))
            if (status.st_dev, status.st_ino) not in seen:
                seen.add((status.st_dev, status.st_ino))
                total += status.st_size
    return total


def site_packages(venv: Path) -> Path:
    python = venv / "bin" / "python"
    found = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                           capture_output=True, text=True, check=True)
    return Path(found.stdout.strip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="install-size-") as folder:
        venv = Path(folder) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        packages = site_packages(venv)
        bare = tree_bytes(packages)
        sizes = []
        for name in ("requirements.txt", "requirements-test.txt"):
            subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                            "--disable-pip-version-check", "-r", str(ROOT / name)], check=True)
            sizes.append((name, tree_bytes(packages)))
    print(f"fresh venv (pip{', setuptools' if sysconfig.get_python_version() < '3.12' else ''}): "
          f"{bare / 1e6:.0f} MB of site-packages")
    print(f"+ requirements.txt (a run): {sizes[0][1] / 1e6:.0f} MB (+{(sizes[0][1] - bare) / 1e6:.0f} MB)")
    print(f"+ requirements-test.txt (the tests): {sizes[1][1] / 1e6:.0f} MB "
          f"(+{(sizes[1][1] - sizes[0][1]) / 1e6:.0f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
