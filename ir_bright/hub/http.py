"""HTTP for the hub client: the one place requests are built and sent, and the one retry loop.

:func:`send` builds every request (``User-Agent``, identity encoding, the bearer token) and
turns what cannot be fetched into a :class:`~ir_bright.errors.DownloadError` and what may heal
into a :class:`Transient`; :func:`retrying` tries an attempt again after a transient failure,
with exponential back-off and equal jitter, honouring ``Retry-After``, and turns the last
failure into a one-line error with advice.

Credentials never leave the host they are meant for: ``HF_TOKEN`` goes only to the origin of
``HF_ENDPOINT`` (same scheme, host and port), whatever URL a listing's next link or a caller
hands :func:`send`; on a redirect ``requests`` drops ``Authorization`` as soon as the host,
scheme or port changes (``Session.rebuild_auth``). Retried: connection errors, time-outs, cut-off
bodies and HTTP 429, 500, 502, 503, 504 (``IR_BRIGHT_HTTP_RETRIES`` times, default 6, from
``IR_BRIGHT_HTTP_BACKOFF`` seconds, default 2, doubling, capped at 60 s a wait: about two
minutes in all). A network that cannot heal fails fast: a host that does not resolve or no
route to it fails at once, a refused or unanswered connection after a few short retries
(:data:`MOST_RETRIES`; under 30 s in all with the defaults). Every failure is an
:class:`~ir_bright.errors.DownloadError`, an ``OSError``, as core ir_datasets' are.
"""

from __future__ import annotations

import email.utils
import errno
import logging
import random
import socket
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar
from urllib.parse import urlsplit

from .._version import __version__
from ..errors import DownloadError, OfflineError, exhausted
from .config import HttpPatience, endpoint, redact, token

logger = logging.getLogger(__name__)
T = TypeVar("T")

CONNECT_TIMEOUT_S = 10
MAX_WAIT_S = 60  # one back-off or Retry-After wait
RETRIED_STATUS = {429, 500, 502, 503, 504}
_DEFAULT_PORTS = {"http": 80, "https": 443}
MOST_RETRIES = {"unresolved": 0, "no route": 0, "refused": 3, "no answer": 1}
"""Retries for the faults that waiting does not heal, or heals in seconds if at all (at most
``IR_BRIGHT_HTTP_RETRIES`` still); every other kind gets ``IR_BRIGHT_HTTP_RETRIES``."""
SHORT_WAIT_S = 4.0  # the longest wait between those few retries
_UNREACHABLE = {"unresolved", "no route", "refused", "no answer", "unreachable"}
_ADVICE = {
    "busy": "the hub is having a bad moment: try again in a few minutes",
    "throttled": "the hub is rate-limiting: wait a few minutes, or set HF_TOKEN "
    "(signed-in users get higher limits)",
    "slow": "check the network, or raise IR_BRIGHT_HTTP_TIMEOUT",
    "silent": "check the network, or raise IR_BRIGHT_HTTP_TIMEOUT",
    "cut": "check the network and try again",
    "unreachable": "check the network or HF_ENDPOINT, or fetch it ahead with "
    "`ir-bright download` where there is network",
}


class Transient(Exception):
    """A failure that may be worth another attempt: ``kind`` is busy, throttled, silent, slow,
    cut, unreachable, or (given few retries or none, :data:`MOST_RETRIES`) unresolved,
    no route, refused or no answer (to a connection)."""

    def __init__(self, kind: str, detail: str, retry_after: float | None = None):
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.retry_after = retry_after


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = -1  # matches no real origin
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), port or _DEFAULT_PORTS.get(scheme)


def for_the_hub(url: str) -> bool:
    """Whether ``url`` is on the hub's own origin (scheme, host and port of ``HF_ENDPOINT``):
    the only place ``HF_TOKEN`` is ever sent."""
    return _origin(url) == _origin(endpoint())


def _headers(url: str, extra: Mapping[str, str] | None) -> dict[str, str]:
    headers = {"User-Agent": f"ir_bright/{__version__}", "Accept-Encoding": "identity"}
    secret = token()
    if secret and for_the_hub(url):
        headers["Authorization"] = f"Bearer {secret}"
    headers.update(extra or {})
    return headers


def send(
    method: str,
    url: str,
    patience: HttpPatience,
    *,
    headers: Mapping[str, str] | None = None,
    stream: bool = False,
    data: Any = None,
    timeout: float | None = None,
) -> Any:
    """The response of one GET (or POST) request (redirects followed) built here with the
    package's headers plus ``headers``. No answer in time or no connection is a
    :class:`Transient`; a URL requests cannot fetch a one-line :class:`DownloadError`."""
    import requests

    wait = patience.timeout if timeout is None else timeout
    try:
        call = requests.post if method == "POST" else requests.get
        return call(
            url,
            headers=_headers(url, headers),
            stream=stream,
            data=data,
            timeout=(min(CONNECT_TIMEOUT_S, wait), wait),
        )
    except requests.ConnectTimeout as exc:
        connect = min(CONNECT_TIMEOUT_S, wait)
        raise Transient(
            "no answer", f"{url} did not accept a connection within {connect:g} s"
        ) from exc
    except requests.Timeout as exc:
        raise Transient("silent", f"{url} did not answer within {wait:g} s") from exc
    except (
        requests.exceptions.InvalidURL,
        requests.exceptions.MissingSchema,
        requests.exceptions.InvalidSchema,
    ) as exc:
        raise DownloadError(
            redact(
                f"{url} is not a URL ir_bright can fetch ({type(exc).__name__}): set "
                "HF_ENDPOINT to the hub's address, e.g. https://huggingface.co"
            )
        ) from exc
    except requests.RequestException as exc:
        limit = next(filter(None, map(exhausted, _causes(exc))), None)
        if limit:  # no socket for want of descriptors: the network is not the problem
            raise DownloadError(redact(f"cannot open a connection to {url}: {limit}")) from exc
        raise _connection_fault(exc, url) from exc


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and what it wraps (urllib3 keeps the socket's error as ``reason`` or cause)."""
    stack: list[Any] = [exc]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if not isinstance(item, BaseException) or id(item) in seen:
            continue
        seen.add(id(item))
        yield item
        stack += [getattr(item, "reason", None), item.__cause__, item.__context__, *item.args]


def _connection_fault(exc: BaseException, url: str) -> Transient:
    """What a failed connection says about the network: a host that does not resolve or no
    route (will not heal by waiting), a refused connection (a server restarting may come
    back in seconds), or anything else (worth the patient back-off)."""
    for cause in _causes(exc):
        if isinstance(cause, socket.gaierror):
            return Transient(
                "unresolved", f"cannot reach {url}: its host does not resolve ({cause})"
            )
        number = getattr(cause, "errno", None)
        if number in (errno.ENETUNREACH, errno.EHOSTUNREACH):
            return Transient("no route", f"cannot reach {url}: no route to its host ({cause})")
        if number == errno.ECONNREFUSED:
            return Transient("refused", f"cannot reach {url}: it refused the connection")
    return Transient("unreachable", f"cannot reach {url} ({type(exc).__name__})")


def refuse_status(url: str, response: Any, what: str = "the download") -> None:
    """Raise for 401/403 (a one-line error) and for the statuses worth another attempt."""
    status = response.status_code
    if status in (401, 403):
        raise DownloadError(redact(f"{url} answered {status}: set HF_TOKEN to a token with access"))
    if status in RETRIED_STATUS:
        kind = "throttled" if status == 429 else "busy"
        says = f"throttled {what}" if status == 429 else "is busy"
        raise Transient(
            kind, f"the hub {says}: {url} answered HTTP {status}", _retry_after(response.headers)
        )


def _retry_after(headers: Mapping[str, str]) -> float | None:
    value = (headers.get("Retry-After") or "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _sleep(seconds: float) -> None:  # one place for tests to watch the waits
    time.sleep(seconds)


def _backoff(attempt: int, fault: Transient, patience: HttpPatience) -> float:
    """Exponential back-off with equal jitter, at least the server's ``Retry-After``; short
    (from at most 1 s, at most :data:`SHORT_WAIT_S`) for the faults allowed only a few."""
    if fault.kind in MOST_RETRIES:
        ceiling = min(SHORT_WAIT_S, min(patience.backoff, 1.0) * 2 ** (attempt - 1))
    else:
        ceiling = min(MAX_WAIT_S, patience.backoff * 2 ** (attempt - 1))
    wait = ceiling / 2 + random.uniform(0, ceiling / 2)
    return max(wait, fault.retry_after or 0.0)


def retrying(attempt: Callable[[], T], patience: HttpPatience) -> T:
    """``attempt()``, tried again after a transient failure (``patience.retries`` more times,
    fewer for the kinds of :data:`MOST_RETRIES`, with back-off); the last failure becomes a
    one-line error with advice."""
    started = time.monotonic()
    number = 1
    while True:
        try:
            return attempt()
        except Transient as fault:
            attempts = 1 + min(patience.retries, MOST_RETRIES.get(fault.kind, patience.retries))
            too_long = fault.retry_after is not None and fault.retry_after > MAX_WAIT_S
            if number >= attempts or too_long:
                raise _give_up(fault, number, time.monotonic() - started) from None
            wait = _backoff(number, fault, patience)
            logger.info(
                "%s (attempt %d of %d); retrying in %.1f s",
                redact(fault.detail),
                number,
                attempts,
                wait,
            )
            _sleep(wait)
            number += 1


def _give_up(fault: Transient, attempts: int, seconds: float) -> DownloadError:
    error = OfflineError if fault.kind in _UNREACHABLE else DownloadError
    return error(
        redact(
            f"{fault.detail}; gave up after {attempts} attempt(s) in {seconds:.0f} s, "
            f"nothing was cached: {_ADVICE.get(fault.kind, _ADVICE['unreachable'])}"
        )
    )
