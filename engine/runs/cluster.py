"""Connecting to a Dask cluster with Dask's own security settings (TLS).

A Dask scheduler runs whatever code its clients send, so who may connect is the whole
question. ``--scheduler tls://HOST:PORT`` connects with mutual TLS: the client checks the
scheduler's certificate against the cluster's CA and shows its own certificate, which the
scheduler checks in turn (Dask sets ``CERT_REQUIRED`` on both sides). The certificate
files come from ``--tls-ca-file/--tls-cert/--tls-key`` (the names ``dask scheduler`` and
``dask worker`` use) or, for any not given, from Dask's configuration
(``distributed.comm.tls.ca-file``, ``distributed.comm.tls.client.cert``,
``distributed.comm.tls.client.key``, e.g. ``~/.config/dask/distributed.yaml`` or the
``DASK_DISTRIBUTED__COMM__TLS__...`` environment variables): :class:`distributed.Security`
does the rest. A ``tcp://`` scheduler authenticates no one; the README says it must sit
only on a trusted network.

Without ``--scheduler`` the run starts a LocalCluster on this machine. Everything it opens
listens on loopback only (the scheduler, the workers, and the scheduler's HTTP server,
whose dashboard is off); since every local user can reach a loopback port, the cluster
is secured with a temporary certificate that exists only in this process and its workers
(:meth:`distributed.Security.temporary`). Connecting to a plain ``tcp://`` scheduler
prints :data:`TCP_WARNING`.
"""

from __future__ import annotations

import os
import re
import ssl
import sys

from engine.errors import UsageError

__all__ = ["TCP_WARNING", "check_address", "client_security", "connect", "local_cluster"]

_OPTIONS = (
    ("--tls-ca-file", "tls_ca_file", "distributed.comm.tls.ca-file"),
    ("--tls-cert", "tls_client_cert", "distributed.comm.tls.client.cert"),
    ("--tls-key", "tls_client_key", "distributed.comm.tls.client.key"),
)


def _scheme(address: str) -> str:
    return address.split("://", 1)[0].lower() if "://" in address else "tcp"


TCP_WARNING = (
    "mjlab: warning: {address} is a plain tcp:// scheduler, which authenticates no one: "
    "everyone who can reach its port may run code as you (use tls://, see the README)"
)
"""The line printed on stderr when a run connects to a plain ``tcp://`` scheduler."""

_ADDRESS = re.compile(r"^(?:(tcp|tls)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$")


def check_address(address: str) -> str:
    """``address`` if it is ``tls://HOST:PORT`` or ``tcp://HOST:PORT`` (no scheme: tcp);
    UsageError naming it otherwise (before Dask sees it).
    """
    m = _ADDRESS.match(address.strip()) if isinstance(address, str) else None
    if m is None or not 1 <= int(m.group(3)) <= 65535:
        raise UsageError(
            f"--scheduler {str(address)[:80]!r}: not a scheduler address; give "
            "tls://HOST:PORT (or tcp://HOST:PORT on a trusted network)"
        )
    return address.strip()


def client_security(scheduler: str, ca_file=None, cert=None, key=None):
    """The :class:`distributed.Security` for a client of ``scheduler``, or ``None``.

    ``None`` (a ``tcp://`` scheduler) lets the Client take Dask's configuration as it is.
    A ``tls://`` scheduler needs the CA file and a client certificate (the key may be in
    the certificate file), given here or in Dask's configuration; the files are loaded
    now, so a missing or unusable one is a UsageError naming it.
    """
    scheduler = check_address(scheduler)
    for (option, _, _), value in zip(_OPTIONS, (ca_file, cert, key), strict=True):
        if value is not None and not os.fspath(value).strip():
            raise UsageError(f"{option} is empty: give a file name")
    given = {
        field: os.fspath(value)
        for (_, field, _), value in zip(_OPTIONS, (ca_file, cert, key), strict=True)
        if value
    }
    if _scheme(scheduler) != "tls":
        if given:
            raise UsageError(
                f"--tls-ca-file, --tls-cert and --tls-key go with a tls:// scheduler, "
                f"not {scheduler}"
            )
        return None
    from distributed import Security

    sec = Security(require_encryption=True, **given)
    for option, field, config in _OPTIONS:
        path = getattr(sec, field)
        if path is None:
            if field == "tls_client_key":
                continue  # the key may be appended to the certificate file
            raise UsageError(
                f"--scheduler {scheduler} needs {option} FILE (or {config} in Dask's "
                "configuration): the cluster's CA and a client certificate"
            )
        if "\n" not in path and not os.path.isfile(path):
            source = option if field in given else config
            raise UsageError(f"{source} {path}: no such file")
    try:
        sec.get_connection_args("client")  # loads the CA, certificate and key
    except (ssl.SSLError, OSError, ValueError) as exc:
        files = ", ".join(str(getattr(sec, f)) for _, f, _ in _OPTIONS if getattr(sec, f))
        raise UsageError(f"cannot use the TLS files {files}: {exc}") from None
    return sec


def connect(scheduler: str, security=None):
    """A :class:`distributed.Client` of ``scheduler``; UsageError if it cannot connect.

    A scheduler that refuses the client's certificate (or a client that refuses the
    scheduler's) ends the same way, naming the address.
    """
    from distributed import Client

    scheduler = check_address(scheduler)
    try:
        client = Client(scheduler, security=security, timeout="10s")
    except (OSError, TypeError, ValueError) as exc:  # TypeError: "TLS expects an ssl_context"
        hint = ""
        if _scheme(scheduler) == "tls":
            hint = " (check that the certificate is signed by the cluster's CA)"
        text = " ".join(str(exc).split())
        raise UsageError(f"cannot reach the Dask scheduler at {scheduler}: {text}{hint}") from None
    if _scheme(scheduler) == "tcp":
        print(TCP_WARNING.format(address=scheduler), file=sys.stderr)
    return client


def local_cluster(workers: int):
    """A LocalCluster of ``workers`` one-thread processes, secured by a temporary TLS
    certificate (so other users of this machine cannot submit work to it).
    """
    from distributed import LocalCluster, Security

    try:
        security = Security.temporary()
    except ImportError:
        raise UsageError(
            "--backend dask without --scheduler needs the 'cryptography' package for the "
            "local cluster's temporary certificate: pip install 'mjlab[dask]'"
        ) from None
    return LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        worker_dashboard_address=None,
        # no dashboard, and the scheduler's HTTP server (health checks) on a free loopback
        # port: a bare ":0" would listen on every interface
        scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
        security=security,
        protocol="tls://",
    )
