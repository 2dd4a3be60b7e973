"""The Spark job against a real standalone cluster: a master and a worker started from
the pyspark wheel (``spark-class``), bound to 127.0.0.1, the job submitted with
``spark-submit`` as the README shows, every score compared with one process's.

Skips, with the reason, when pyspark (``pip install "meteorx[spark]"``) or Java is
missing. Both JVMs run in their own process group, killed whole at the end (executors
and Python workers included); the test checks that none is left.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.data]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _spark_bin() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "bin"


@dataclass
class Cluster:
    """A running standalone master and worker."""

    url: str
    env: dict[str, str]
    groups: list[int]

    def submit(
        self, *args: str, conf: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``spark-submit`` the meteorx job, as a user would."""
        from meteorx.spark import JOB_SCRIPT

        settings = {"spark.executor.memory": "512m", "spark.ui.enabled": "false", **(conf or {})}
        command = [str(_spark_bin() / "spark-submit"), "--master", self.url]
        for key, value in settings.items():
            command += ["--conf", f"{key}={value}"]
        return subprocess.run(
            [*command, JOB_SCRIPT, *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )


def _wait_for(path: Path, text: str, process: subprocess.Popen[bytes], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and text in path.read_text(errors="replace"):
            return
        if process.poll() is not None:
            break
        time.sleep(0.5)
    log = path.read_text(errors="replace")[-2000:] if path.exists() else ""
    raise RuntimeError(f"the Spark {path.stem} did not start ({text!r} not logged):\n{log}")


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def _stop(group: int) -> None:
    """Kill a process group: SIGTERM, then SIGKILL after 3 s."""
    for sig, wait in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and _group_alive(group):
            time.sleep(0.2)
        if not _group_alive(group):
            return


@contextlib.contextmanager
def standalone_cluster(work: Path, cores: int = 2, memory: str = "1g") -> Iterator[Cluster]:
    """A master and one worker (``cores``, ``memory``) on 127.0.0.1, free ports, files
    under ``work``; both process groups killed on exit."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "conf").mkdir(exist_ok=True)  # no site configuration
    env = {
        **os.environ,
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_CONF_DIR": str(work / "conf"),
        "SPARK_LOCAL_DIRS": str(work / "local"),
        "SPARK_LOG_DIR": str(work / "logs"),
        "SPARK_DAEMON_MEMORY": "256m",
        "PYSPARK_PYTHON": sys.executable,
        "PYSPARK_DRIVER_PYTHON": sys.executable,
    }
    env.pop("SPARK_HOME", None)
    port, master_ui, worker_ui = _free_port(), _free_port(), _free_port()
    url = f"spark://127.0.0.1:{port}"
    spark_class = str(_spark_bin() / "spark-class")
    commands = {
        "master": [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                   "--port", str(port), "--webui-port", str(master_ui)],
        "worker": [spark_class, "org.apache.spark.deploy.worker.Worker", url, "--host",
                   "127.0.0.1", "--webui-port", str(worker_ui), "--cores", str(cores),
                   "--memory", memory, "--work-dir", str(work / "worker")],
    }  # fmt: skip
    groups: list[int] = []
    try:
        for name, command in commands.items():
            log = work / f"{name}.log"
            with log.open("wb") as handle:
                process = subprocess.Popen(
                    command, env=env, stdout=handle, stderr=subprocess.STDOUT,
                    start_new_session=True,
                )  # fmt: skip
            groups.append(process.pid)  # a new session: its group id is its pid
            ready = "I have been elected leader" if name == "master" else "Successfully registered"
            _wait_for(log, ready, process, 120)
        yield Cluster(url, env, groups)
    finally:
        for group in reversed(groups):
            _stop(group)


def _java_processes(groups: list[int]) -> list[str]:
    """Processes still in the cluster's process groups (from ``ps``)."""
    out = subprocess.run(
        ["ps", "-eo", "pgid=,pid=,args="], capture_output=True, text=True, check=True
    ).stdout
    return [line for line in out.splitlines() if line.split() and int(line.split()[0]) in groups]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'meteorx[spark]')")
    if shutil.which("java") is None:
        pytest.skip("`java` not found on PATH (Spark needs a Java 17+ runtime)")
    if shutil.which("ps") is None:
        pytest.skip("`ps` not found: cannot check that the cluster's JVMs are stopped")
    work = tmp_path_factory.mktemp("spark-cluster")
    with standalone_cluster(work) as running:
        yield running
    left = _java_processes(running.groups)
    assert not left, f"processes left after stopping the cluster: {left}"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory, xray: dict[str, list[str]]) -> Path:
    """600 xray lines: two systems, two references; and the same as a Parquet table."""
    folder = tmp_path_factory.mktemp("spark-inputs")
    n = 600
    for name, lines in (("hyp1", xray["system1"]), ("hyp2", xray["system2"]), ("ref", xray["ref"])):
        (folder / f"{name}.txt").write_text("\n".join(lines[:n]) + "\n", encoding="utf-8")
    (folder / "ref2.txt").write_text("\n".join(xray["system2"][n : 2 * n]) + "\n", encoding="utf-8")
    return folder


def _meteorx_score(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "meteorx", "score", "--quiet", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def _rows(folder: Path) -> dict[tuple[str, str], Any]:
    import pyarrow.parquet as pq

    table = pq.read_table(folder).to_pylist()
    return {(r["system"], r["segment"]): r for r in table}


def test_job_on_a_cluster_equals_one_process(
    cluster: Cluster, inputs: Path, tmp_path: Path
) -> None:
    """Two systems, two references, the ``meteorx`` preset (fractional statistics, so
    the sums' order matters): the same JSON as ``meteorx score``, and every row.
    (``tests/test_spark.py`` checks li and the English default the same way.)"""
    files = [("--hyp", "hyp1"), ("--hyp", "hyp2"), ("--ref", "ref"), ("--ref", "ref2")]
    data = [x for flag, name in files for x in (flag, str(inputs / f"{name}.txt"))]
    data += ["--preset", "meteorx", "--lang", "en"]
    rows = tmp_path / "rows"
    done = cluster.submit(*data, "--format", "json", "--rows", str(rows))
    assert done.returncode == 0, done.stderr[-3000:]
    want = _meteorx_score(*data, "--format", "json")
    expected = json.loads(want)
    got = json.loads(done.stdout)
    for system in expected["systems"]:
        del system["segments"]  # in --rows instead
    assert got == expected
    scored = _rows(rows)
    assert len(scored) == 2 * 600
    for system in json.loads(want)["systems"]:
        for segment in system["segments"]:
            row = scored[(system["hyp"], str(segment["segment"]))]
            assert row["score"] == segment["score"]
            assert row["stats"] == segment["stats"]
            assert row["precision"] == segment["precision"]


def test_table_with_documents_text_output(cluster: Cluster, inputs: Path, tmp_path: Path) -> None:
    """A TSV table with a document column: the text output equals ``meteorx score``'s
    without its segment lines."""
    hyps = (inputs / "hyp1.txt").read_text(encoding="utf-8").splitlines()[:200]
    refs = (inputs / "ref.txt").read_text(encoding="utf-8").splitlines()[:200]
    table = tmp_path / "table.tsv"
    lines = ["doc\thyp\tref"] + [
        f"d{i // 37}\t{h}\t{r}" for i, (h, r) in enumerate(zip(hyps, refs, strict=True))
    ]
    table.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["--input-format", "tsv", "--hyp", str(table), "--doc-column", "doc",
            "--preset", "li", "--lang", "en"]  # fmt: skip
    done = cluster.submit(*args, "--summary", str(tmp_path / "summary.json"))
    assert done.returncode == 0, done.stderr[-3000:]
    want = _meteorx_score(*args)
    assert done.stdout == "".join(
        line for line in want.splitlines(keepends=True) if not line.startswith("Segment ")
    )
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert summary == json.loads(_meteorx_score(*args, "--format", "json", "--system-only"))


@pytest.mark.wordnet
def test_missing_resource_on_an_executor(cluster: Cluster, inputs: Path, tmp_path: Path) -> None:
    """The driver has the configuration's resources, the executors do not: one line."""
    missing = tmp_path / "no-wordnet-here"
    done = cluster.submit(
        "--hyp", str(inputs / "hyp1.txt"), "--ref", str(inputs / "ref.txt"),
        "--preset", "meteor-2005",
        conf={"spark.executorEnv.METEORX_WORDNET": str(missing)},
    )  # fmt: skip
    output = done.stdout + done.stderr  # spark-submit sends the job's stderr to stdout
    assert done.returncode == 2, output[-3000:]
    errors = [line for line in output.splitlines() if line.startswith("meteorx: error:")]
    assert len(errors) == 1, output[-3000:]
    assert "on an executor" in errors[0] and "METEORX_WORDNET" in errors[0]
    assert "Traceback" not in output
