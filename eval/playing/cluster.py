"""Ray, for work spread over a cluster: importing it with an install hint, joining a
cluster or starting a local instance, and the one error all of that raises. Used by the
matches spread over Ray workers (``eval.playing.distributed``) and self-play actors
(``train.actors``)."""

from __future__ import annotations


RAY_MISSING = ("--actors needs Ray: pip install -e '.[ray]' (or pip install "
               "'ray[default]')")


class ActorError(RuntimeError):
    """Work on Ray cannot run: Ray missing, a cluster out of reach, actors dying."""


def ray_module():
    """``ray``, or ActorError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ActorError(RAY_MISSING) from None
    return ray


def start_ray(address: str | None, cpus: int | None = None) -> None:
    """Join the cluster at ``address`` or start a local Ray instance (quiet, no dashboard);
    ActorError when the address cannot be reached."""
    ray = ray_module()
    if address:
        _check_reachable(address)
    if ray.is_initialized():
        return
    options = dict(include_dashboard=False, configure_logging=True, logging_level="ERROR",
                   log_to_driver=True)
    try:
        if address:
            ray.init(address=address, **options)
        else:
            ray.init(num_cpus=cpus, **options)
    except (ConnectionError, TimeoutError, ValueError, RuntimeError) as e:
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ActorError(f"cannot reach {where}: {first[:200]}") from None


def _check_reachable(address: str, seconds: float = 5.0) -> None:
    """ActorError unless ``address`` (HOST:PORT of a cluster's head, or ``auto``) takes a
    TCP connection within ``seconds``: Ray itself would wait minutes on a wrong address."""
    import socket
    if address == "auto":
        return
    host, sep, port = address.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ActorError(f"--ray-address must be HOST:PORT (the head's `ray start --head` "
                         f"address, e.g. 10.0.0.5:6379), got {address[:80]!r}")
    try:
        with socket.create_connection((host, int(port)), timeout=seconds):
            pass
    except OSError as e:
        raise ActorError(f"cannot reach the Ray cluster at {address}: "
                         f"{e.strerror or type(e).__name__}") from None
