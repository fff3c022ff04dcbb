"""The cluster path with TLS (issue 23.1): a run through a TLS scheduler gives the local
records, and a client without the cluster's certificate is refused.

The certificates are made with the openssl command the README documents.
"""

import shutil
import socket
import ssl
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("dask.distributed")

from engine.errors import UsageError  # noqa: E402
from engine.runs.cluster import client_security  # noqa: E402
from engine.runs.dataset import load_chunks, run_dataset  # noqa: E402
from engine.runs.run import make_spec  # noqa: E402


def _certificate(folder, name):
    """A self-signed certificate and key, made by the README's command."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = folder / f"{name}.crt", folder / f"{name}.key"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-subj", f"/CN={name}", "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory):
    """A local TLS scheduler and two worker processes sharing one certificate."""
    from distributed import LocalCluster, Security

    folder = tmp_path_factory.mktemp("certs")
    cert, key = _certificate(folder, "cluster")
    roles = {f"tls_{r}_{k}": str(v) for r in ("scheduler", "worker", "client")
             for k, v in (("cert", cert), ("key", key))}  # fmt: skip
    security = Security(require_encryption=True, tls_ca_file=str(cert), **roles)
    cluster = LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        protocol="tls://",
        security=security,
        dashboard_address=None,
        host="127.0.0.1",
        scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
    )
    try:
        yield cluster.scheduler_address, cert, key, folder
    finally:
        cluster.close()


def test_a_run_through_a_tls_scheduler_gives_the_local_records(tmp_path, tls_cluster):
    address, cert, key, _ = tls_cluster
    assert address.startswith("tls://")
    spec = make_spec("tuidaohu", 960, seed=23, policies="efficiency")
    run_dataset(spec, tmp_path / "local", chunk_matches=20, progress=False)
    security = client_security(address, cert, cert, key)
    run_dataset(
        spec,
        tmp_path / "tls",
        chunk_matches=20,
        backend="dask",
        scheduler=address,
        security=security,
        progress=False,
    )
    local, remote = load_chunks(tmp_path / "local"), load_chunks(tmp_path / "tls")
    assert len(local) == 960
    assert local.equals(remote)
    # the chunks were played by the cluster's workers, not by this process
    from distributed import Client

    with Client(address, security=security) as client:
        prefixes = client.run_on_scheduler(lambda dask_scheduler: set(dask_scheduler.task_prefixes))
    assert "dask_chunk_task" in prefixes  # Dask names the prefix without the underscore
    # the same certificates taken from Dask's configuration instead of options
    import dask

    config = {
        "distributed.comm.tls.ca-file": str(cert),
        "distributed.comm.tls.client.cert": str(cert),
        "distributed.comm.tls.client.key": str(key),
    }
    with dask.config.set(config):
        from_config = client_security(address)
        with Client(address, security=from_config) as client:
            assert client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.address) == address


def _host_port(address):
    host, port = address.removeprefix("tls://").rsplit(":", 1)
    return host, int(port)


def test_a_client_without_the_clusters_certificate_is_refused(tmp_path, tls_cluster):
    address, cert, key, folder = tls_cluster
    host, port = _host_port(address)
    # with the cluster's certificate the scheduler greets the client (its Dask handshake)
    ctx = ssl.create_default_context(cafile=str(cert))
    ctx.check_hostname = False  # Dask's clusters use IP addresses, as Security does
    ctx.load_cert_chain(str(cert), str(key))
    with socket.create_connection((host, port), timeout=10) as raw:
        with ctx.wrap_socket(raw) as tls:
            assert b"compression" in tls.recv(4096)
    # TLS that trusts the scheduler but shows no certificate: the scheduler ends it
    ctx = ssl.create_default_context(cafile=str(cert))
    ctx.check_hostname = False
    with pytest.raises(ssl.SSLError, match="CERTIFICATE_REQUIRED"):
        with socket.create_connection((host, port), timeout=10) as raw:
            with ctx.wrap_socket(raw) as tls:
                tls.recv(4096)
    # plain TCP to the TLS port: never gets a Dask reply
    with socket.create_connection((host, port), timeout=10) as raw:
        raw.sendall(b"\x00" * 64)
        try:
            reply = raw.recv(4096)
        except ConnectionError:
            reply = b""
    assert reply == b"" or reply[0] == 0x15  # closed, or a TLS alert record: no Dask reply
    # a certificate the cluster's CA did not sign: mjlab's client is refused, exit 2
    evil_cert, evil_key = _certificate(folder, "intruder")
    out = tmp_path / "refused"
    proc = subprocess.run(
        [
            sys.executable, "-m", "mjlab.cli", "simulate", "tuidaohu", "--deals", "32",
            "--backend", "dask", "--scheduler", address, "--tls-ca-file", str(cert),
            "--tls-cert", str(evil_cert), "--tls-key", str(evil_key), "--quiet",
            "--out", f"{out}/",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot reach the Dask scheduler" in lines[0], proc.stderr
    assert address in lines[0]
    assert not list(out.glob("chunk-*"))


def test_tls_options_are_checked_before_connecting(tmp_path):
    with pytest.raises(UsageError, match="go with a tls:// scheduler"):
        client_security("tcp://10.0.0.1:8786", ca_file=tmp_path / "ca.pem")
    with pytest.raises(UsageError, match="no such file"):
        client_security("tls://10.0.0.1:8786", tmp_path / "ca.pem", tmp_path / "c.pem")
    with pytest.raises(UsageError, match="--tls-ca-file"):
        client_security("tls://10.0.0.1:8786")
    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate\n")
    with pytest.raises(UsageError, match="cannot use the TLS files"):
        client_security("tls://10.0.0.1:8786", bad, bad, bad)
    assert client_security("tcp://10.0.0.1:8786") is None


def test_the_local_cluster_admits_only_this_run(tmp_path):
    # its scheduler listens on a loopback port any local user can reach: TLS with a
    # certificate that exists only in this process and its workers
    from engine.runs.cluster import local_cluster

    with local_cluster(1) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tls://")
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE  # even a client that trusts anything is refused
        with pytest.raises(ssl.SSLError, match="CERTIFICATE_REQUIRED"):
            with socket.create_connection(_host_port(address), timeout=10) as raw:
                with ctx.wrap_socket(raw) as tls:
                    tls.recv(4096)


def _listening(process) -> set[tuple[str, int]]:
    """The addresses and ports ``process`` listens on (TCP)."""
    import psutil

    return {
        (c.laddr.ip, c.laddr.port)
        for c in process.net_connections(kind="inet")
        if c.status == psutil.CONN_LISTEN
    }


def test_the_local_cluster_opens_nothing_beyond_loopback():
    """Issue 46.6: its scheduler's dashboard listened on every interface, over plain HTTP."""
    import psutil

    from engine.runs.cluster import local_cluster

    me = psutil.Process()
    before = _listening(me)
    children = {c.pid for c in me.children(recursive=True)}
    with local_cluster(2):
        new = [c for c in me.children(recursive=True) if c.pid not in children]
        opened = (_listening(me) - before).union(*(_listening(c) for c in new))
        assert len(new) >= 2 and len(opened) >= 3  # the scheduler, its HTTP, the workers
        assert all(ip in ("127.0.0.1", "::1") for ip, _ in opened), opened


def test_a_plain_tcp_scheduler_prints_the_readmes_warning(tmp_path, capsys):
    """Issue 46.6: a run through a ``tcp://`` scheduler says, once, what that means."""
    from distributed import LocalCluster

    from engine.runs.cluster import TCP_WARNING
    from mjlab.cli import main

    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, host="127.0.0.1",
        dashboard_address=None, protocol="tcp://",
    ) as cluster:  # fmt: skip
        address = cluster.scheduler_address
        argv = ["simulate", "tuidaohu", "--deals", "64", "--policy", "random", "--quiet",
                "--backend", "dask", "--scheduler", address, "--out", f"{tmp_path}/d/"]  # fmt: skip
        assert main(argv) == 0
    err = capsys.readouterr().err
    assert err.count(TCP_WARNING.format(address=address)) == 1, err
    readme = (Path(__file__).parents[3] / "README.md").read_text(encoding="utf-8")
    assert TCP_WARNING.format(address="tcp://HEAD:8786") in readme
    assert len(list((tmp_path / "d").glob("chunk-*.parquet"))) == 1
