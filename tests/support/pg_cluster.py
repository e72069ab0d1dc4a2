"""A throwaway PostgreSQL server for the tests and the benchmarks (no tonk imports).

    cluster = Cluster.start()      # initdb + pg_ctl start on a private port, socket and data dir
    cluster.dsn                    # postgresql://postgres@/postgres?host=<socket dir>&port=<port>
    cluster.stop()                 # pg_ctl stop, data dir removed

The server refuses to run as root (as CI runs), so when this process is root
``initdb`` and ``pg_ctl`` run as the ``postgres`` user through ``runuser``, in
a temporary directory chowned to that user.  The binaries are Debian's
(``/usr/lib/postgresql/<version>/bin``, newest first; ``TONK_PG_BIN`` names
another folder); :func:`find_bin` returns ``None`` when there are none
(``.ci/setup-postgres`` installs them).

The tests import it by name (``tests/support`` is on pytest's ``pythonpath``);
the benchmarks, run from the checkout's root, as ``tests.support.pg_cluster``.
Run as a script: ``python tests/support/pg_cluster.py`` starts a server, prints
its DSN and stops it on Enter (handy for ``TONK_PG_DSN``).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path


def find_bin() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``, or ``None``."""
    named = os.environ.get("TONK_PG_BIN")
    candidates = [Path(named)] if named else sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=_version, reverse=True)
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    return None


def _version(folder: Path) -> int:
    try:
        return int(folder.parent.name)
    except ValueError:
        return 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Cluster:
    bin: Path
    root: Path
    port: int
    as_user: str | None

    @property
    def socket_dir(self) -> Path:
        return self.root / "socket"

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def dsn(self) -> str:
        user = self.as_user or _whoami()
        return f"postgresql://{user}@/postgres?host={self.socket_dir}&port={self.port}"

    def _run(self, *args: str, log: bool = False) -> None:
        cmd = [str(self.bin / args[0]), *args[1:]]
        if self.as_user:
            cmd = ["runuser", "-u", self.as_user, "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=self.root)
        if done.returncode:
            extra = ""
            logfile = self.root / "server.log"
            if log and logfile.exists():
                extra = "\n" + logfile.read_text()[-2000:]
            raise RuntimeError(f"{' '.join(args[:2])} failed ({done.returncode}): {done.stderr.strip()}{extra}")

    @classmethod
    def start(cls, bin: Path | None = None, durable: bool = False) -> "Cluster":
        """A throwaway server; ``durable`` keeps PostgreSQL's defaults (fsync, synchronous_commit and
        full_page_writes on), otherwise all three are off (the tests' fast setting)."""
        bin = bin or find_bin()
        if bin is None:
            raise RuntimeError("no PostgreSQL server binaries (run .ci/setup-postgres, or set TONK_PG_DSN)")
        as_user = "postgres" if os.geteuid() == 0 else None
        root = Path(tempfile.mkdtemp(prefix="tonk-pg-"))
        cluster = cls(bin, root, _free_port(), as_user)
        cluster.socket_dir.mkdir()
        if as_user:
            root.chmod(0o755)
            shutil.chown(root, as_user, as_user)
            shutil.chown(cluster.socket_dir, as_user, as_user)
        try:
            cluster._run("initdb", "-D", str(cluster.data_dir), "-U", as_user or _whoami(), "--auth=trust",
                         "--encoding=UTF8", "--locale=C", "--no-sync")
            fast = "" if durable else "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
            opts = f"-p {cluster.port} -k {cluster.socket_dir} -c listen_addresses='' {fast}-c max_connections=200"
            cluster._run("pg_ctl", "-D", str(cluster.data_dir), "-l", str(root / "server.log"), "-o", opts, "-w", "-t", "60", "start", log=True)
        except BaseException:
            shutil.rmtree(root, ignore_errors=True)
            raise
        return cluster

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data_dir), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def _whoami() -> str:
    import pwd

    return pwd.getpwuid(os.geteuid()).pw_name


if __name__ == "__main__":
    c = Cluster.start()
    print(c.dsn, flush=True)
    try:
        input("PostgreSQL is running; press Enter to stop it\n")
    finally:
        c.stop()
