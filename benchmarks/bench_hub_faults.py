"""The hub client's fault scenarios, run against ir_bright's client and huggingface_hub's.

Each scenario is one of the package's own hub fault tests (``tests/test_hub*.py``) replayed
on the loopback fixture hub (``tests/fixtures/hubserver.py``, taught here to answer ``HEAD``
as the real hub does, since huggingface_hub asks for a file's metadata first). Every
(scenario, client) pair runs in a fresh interpreter, with ``HF_ENDPOINT`` pointing at the
fixture hub and a time limit, and reports what happened: the file cached with the right
bytes, a refusal with nothing wrong cached, wrong bytes cached, or no end within the limit.

ir_bright fetches with ``HubFile(...).fetch()`` (pinned size and md5 unless the scenario is
about the hub's own sha256); huggingface_hub with ``hf_hub_download(..., repo_type="dataset",
local_dir=IR_DATASETS_HOME/<namespace>)`` (the form that comes nearest to ir_datasets' cache
layout) and ``HfApi().list_repo_tree`` for listings. Both get the same time-outs (1 s for the
stall scenarios; huggingface_hub takes whole seconds only).

    pip install huggingface_hub   # into the environment that runs this script
    python benchmarks/bench_hub_faults.py [--limit 60]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

REPO = "owner/data"
PATH = "config/split.parquet"
BODY = b"PAR1" + bytes(range(256)) * 4096 + b"PAR1"  # 1 MiB framed as parquet is
COMMIT = "0123456789abcdef0123456789abcdef01234567"
TOKEN = "hf_secret"
CLIENTS = ("ir_bright", "huggingface_hub")

# name -> (what a sound client does: "cached", "refused" or "safe" (either, never wrong bytes),
# the seconds it may take, what the fault is)
SCENARIOS = {
    "503 once": ("cached", 30, "the first request answers 503, the next the file"),
    "429 Retry-After 2 once": ("cached", 30, "the first request answers 429, Retry-After: 2"),
    "503 always": ("refused", 60, "every request answers 503"),
    "Retry-After 3600": ("refused", 10, "429 with Retry-After: 3600 (an hour)"),
    "cut once, Range served": ("cached", 30, "the body drops after 300 kB once; 206 served"),
    "cut once, no Range": ("cached", 30, "the body drops after 300 kB once; no 206"),
    "cut always": ("refused", 60, "the body always drops after 12 kB"),
    "stall": ("refused", 20, "30 s of silence after the headers (time-out 1 s)"),
    "trickle": ("refused", 20, "50 bytes a second, never silent for 1 s (time-out 1 s)"),
    "HTML page, 200": ("refused", 10, "a proxy's HTML page with status 200"),
    "wrong bytes, right sha256 ETag": ("refused", 10, "one byte flipped; headers as the hub's"),
    "wrong sha256 ETag": ("safe", 10, "the right bytes; the ETag another file's sha256"),
    "pinned md5 differs": ("refused", 10, "the hub's file changed since its md5 was pinned"),
    "gzip-encoded body": ("cached", 10, "Content-Encoding: gzip, length of the gzip"),
    "undecodable encoding": ("safe", 10, "Content-Encoding: br, the body in fact plain"),
    "no Content-Length": ("cached", 10, "the body then the connection's close"),
    "bytes past the file": ("refused", 10, "4 MiB more after the file, no Content-Length"),
    "redirect, other host": ("cached", 10, "302 to another host; the token must stay home"),
    "redirect, other port": ("cached", 10, "302 to another port of the same host"),
    "listing next link, other port": ("cached", 10, "a listing page links to another port"),
    "listing next link loops": ("refused", 10, "a listing page links to itself"),
    "offline, not cached": ("refused", 5, "HF_HUB_OFFLINE=1 and no cached copy"),
    "offline, cached": ("cached", 5, "HF_HUB_OFFLINE=1 and a cached copy"),
    "cached, hub up": ("cached", 5, "a cached copy; requests made to the hub are counted"),
    "cached, network down": ("cached", 15, "a cached copy; the hub refuses connections"),
    "host does not resolve": ("refused", 10, "HF_ENDPOINT's host does not resolve"),
    "connection refused": ("refused", 40, "nothing listens on HF_ENDPOINT's port"),
    "killed mid-download": ("cached", 30, "SIGKILL during the body; then fetched again"),
    "cache entry is a link": ("refused", 10, "the cached file is a symlink to outside"),
}
"""Each scenario, as the package's tests state what must happen."""


# -- the child: one scenario, one client ----------------------------------------------------


def _start_hub(root: Path):
    """The fixture hub over ``root``, also answering HEAD (headers only, no fault consumed
    that only a body can meet)."""
    from http.server import ThreadingHTTPServer

    from tests.fixtures import hubserver

    state = hubserver.HubServer(root=root, commit=COMMIT)
    base = hubserver._handler(state)

    class _Discard:
        closed = False

        def write(self, data: bytes) -> int:
            return len(data)

        def flush(self) -> None:
            pass

    class Handler(base):  # type: ignore[misc, valid-type]
        def end_headers(self) -> None:
            super().end_headers()
            if self.command == "HEAD":
                self.wfile.flush()
                self.wfile = _Discard()

        def do_HEAD(self) -> None:
            body_faults = (dict(state.cut_once), state.stall, state.trickle, state.slow)
            state.stall = state.trickle = state.slow = 0
            try:
                self.do_GET()
            finally:
                state.cut_once, state.stall, state.trickle, state.slow = body_faults

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    import threading

    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    return state


def _hub_file(pinned: bool = True):
    """ir_bright's description of the file (pinned: its size and md5 known beforehand)."""
    from ir_bright.hub import HubFile

    pins = {"size": len(BODY), "md5": hashlib.md5(BODY).hexdigest()} if pinned else {}
    return HubFile(repo=REPO, path=PATH, namespace="ns", cache_path="split.parquet", **pins)


def _fetch(client: str, home: Path, pinned: bool = True) -> Path:
    if client == "ir_bright":
        return _hub_file(pinned).fetch()
    from huggingface_hub import hf_hub_download

    local = hf_hub_download(REPO, PATH, repo_type="dataset", revision="main", local_dir=home / "ns")
    return Path(local)


def _final(client: str, home: Path) -> Path:
    """Where the client caches the file (ir_bright: where the file says, under
    ``IR_DATASETS_HOME``, which the scenario sets to ``home``)."""
    return Path(_hub_file().local_path) if client == "ir_bright" else home / "ns" / PATH


def _list(client: str, home: Path, folder: str) -> list[str]:
    if client == "ir_bright":
        from ir_bright.hub import list_folder

        return [e.path for e in list_folder(REPO, "main", folder, home / "listing.json")]
    from huggingface_hub import HfApi

    tree = HfApi().list_repo_tree(REPO, path_in_repo=folder, repo_type="dataset", revision="main")
    return [entry.path for entry in tree]


def _put(root: Path, path: str = PATH, body: bytes = BODY) -> None:
    target = root / REPO / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(body)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _no_such_host() -> None:
    real = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):  # no DNS query leaves the machine
        if host == "nonexistent.invalid":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]
    os.environ["HF_ENDPOINT"] = "http://nonexistent.invalid"


def _set_up(name: str, client: str, hub, root: Path, home: Path) -> dict:
    """Plant scenario ``name``'s fault; return what the run needs to know (``pinned``,
    ``other``: a second hub whose requests are watched, ``listing``: a folder to list)."""
    _put(root)
    plan: dict = {"pinned": True}
    knobs = {
        "503 once": lambda: hub.status.update({PATH: [(503, None)]}),
        "429 Retry-After 2 once": lambda: hub.status.update({PATH: [(429, 2)]}),
        "503 always": lambda: hub.status_always.update({PATH: (503, None)}),
        "Retry-After 3600": lambda: hub.status_always.update({PATH: (429, 3600)}),
        "cut once, no Range": lambda: hub.cut_once.update({PATH: 300_000}),
        "cut always": lambda: hub.cut_after.update({PATH: 12_000}),
        "HTML page, 200": lambda: hub.html.add(PATH),
        "wrong bytes, right sha256 ETag": lambda: hub.corrupt.add(PATH),
        "gzip-encoded body": lambda: hub.gzip.add(PATH),
        "undecodable encoding": lambda: hub.brotli.add(PATH),
        "no Content-Length": lambda: hub.no_length.add(PATH),
    }
    if name in knobs:
        knobs[name]()
    if name == "cut once, Range served":
        hub.ranges = True
        hub.cut_once[PATH] = 300_000
    elif name in ("stall", "trickle"):
        setattr(hub, name, 30 if name == "stall" else 0.02)
        os.environ.update(
            IR_BRIGHT_HTTP_TIMEOUT="1", HF_HUB_DOWNLOAD_TIMEOUT="1", HF_HUB_ETAG_TIMEOUT="1"
        )
    if name in ("wrong sha256 ETag", "cut always"):
        plan["pinned"] = False  # the hub's sha256 is what is checked
    if name == "wrong sha256 ETag":
        hub.wrong_etag.add(PATH)
    elif name == "pinned md5 differs":
        _put(root, body=BODY[:-5] + b"!PAR1")  # same size, other bytes: a new upload
    elif name == "bytes past the file":
        hub.no_length.add(PATH)
        hub.extra[PATH] = b"x" * (4 << 20)
    elif name.startswith(("redirect", "listing")):
        plan.update(_second_hub(name, hub, root))
    elif name.startswith(("offline", "cached")) or name == "cache entry is a link":
        _after_a_good_fetch(name, client, hub, home)
    elif name == "host does not resolve":
        _no_such_host()
    elif name == "connection refused":
        os.environ["HF_ENDPOINT"] = f"http://127.0.0.1:{_free_port()}"
    if plan.get("other") is not None or name.startswith("listing"):
        os.environ["HF_TOKEN"] = TOKEN
    return plan


def _second_hub(name: str, hub, root: Path) -> dict:
    """Scenarios of a redirect or a listing page leading to another hub: the plan's
    ``other`` (and ``listing``)."""
    from tests.fixtures import hubserver

    if name.startswith("redirect"):
        other, _ = hubserver.start(root)
        other.commit, hub.token, hub.linked_headers = COMMIT, TOKEN, True
        host = "localhost" if name.endswith("other host") else "127.0.0.1"
        hub.redirect_to = other.url.replace("127.0.0.1", host)
        return {"other": other}
    for path in ("docs/a.parquet", "docs/b.parquet", "docs/c.parquet"):
        _put(root, path)
    hub.listing_page, hub.token = 1, TOKEN
    if name.endswith("loops"):
        hub.next_loop = True
        return {"listing": "docs"}
    other, _ = hubserver.start(root)
    other.listing_page, hub.next_base = 1, other.url
    return {"listing": "docs", "other": other}


def _after_a_good_fetch(name: str, client: str, hub, home: Path) -> None:
    """Scenarios of a file cached by a first, good fetch (but "offline, not cached"), then
    offline, without a network or replaced by a link."""
    if name != "offline, not cached":
        _fetch(client, home)
    hub.requests.clear()
    if name.startswith("offline"):
        os.environ["HF_HUB_OFFLINE"] = "1"
    elif name == "cached, network down":
        os.environ["HF_ENDPOINT"] = f"http://127.0.0.1:{_free_port()}"
    elif name == "cache entry is a link":
        final = _final(client, home)
        outside = home.parent / "outside.parquet"
        outside.write_bytes(BODY[:-5] + b"!PAR1")
        final.unlink()
        final.symlink_to(outside)


def _killed_then_fetched(client: str, hub, home: Path) -> Path:
    """A child process fetching the file is killed mid-body; then this process fetches it."""
    import signal

    hub.slow = 0.05  # 64 KiB every 50 ms: the body takes about a second
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import bench_hub_faults as b; "
        "from pathlib import Path; b._fetch(sys.argv[2], Path(sys.argv[3]))"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(Path(__file__).parent), client, str(home)],
        stderr=subprocess.DEVNULL,
    )
    while len(hub.requests) < 2 if client == "huggingface_hub" else not hub.requests:
        time.sleep(0.02)
    time.sleep(0.3)
    child.send_signal(signal.SIGKILL)
    child.wait()
    hub.slow = 0
    return _fetch(client, home)


def child(name: str, client: str) -> dict:
    """Run scenario ``name`` with ``client`` in this (fresh) interpreter; return the outcome."""
    work = Path(tempfile.mkdtemp(prefix="hubfault-"))
    root, home = work / "hub", work / "home"
    home.mkdir()
    hub = _start_hub(root)
    os.environ.update(
        HF_ENDPOINT=hub.url,
        IR_DATASETS_HOME=str(home),
        HF_HOME=str(work / "hf-home"),
        HF_HUB_DISABLE_TELEMETRY="1",
        HF_HUB_DISABLE_PROGRESS_BARS="1",
        HF_HUB_DISABLE_XET="1",
        IR_BRIGHT_HTTP_BACKOFF="0.1",
        IR_BRIGHT_HTTP_TIMEOUT="10",
    )
    for name_ in ("HF_TOKEN", "HF_HUB_OFFLINE", "IR_BRIGHT_VERIFY", "IR_BRIGHT_REVISION"):
        os.environ.pop(name_, None)
    plan = _set_up(name, client, hub, root, home)
    outcome: dict = {"error": None}
    started = time.monotonic()
    try:
        if "listing" in plan:
            got = _list(client, home, plan["listing"])
            outcome["status"] = "cached" if len(got) == 3 else "wrong"
        else:
            if name == "killed mid-download":
                path = _killed_then_fetched(client, hub, home)
            else:
                path = _fetch(client, home, plan["pinned"])
            outcome["status"] = "cached" if path.read_bytes() == BODY else "wrong"
    except BaseException as exc:  # noqa: BLE001 - every failure is an outcome here
        message = str(exc).strip().splitlines()
        outcome["error"] = f"{type(exc).__name__}: {message[0] if message else ''}"[:90]
        final = _final(client, home)  # a link planted by the scenario is not a cached file
        wrong = final.is_file() and not final.is_symlink() and final.read_bytes() != BODY
        outcome["status"] = "wrong" if wrong else "refused"
    outcome["seconds"] = time.monotonic() - started
    outcome["requests"] = len(hub.requests)
    other = plan.get("other")
    if other is not None:
        seen = other.headers + other.listing_headers
        outcome["token_leaked"] = any("Authorization" in h for h in seen)
    return outcome


# -- the parent: every pair, a table --------------------------------------------------------


def run_pair(name: str, client: str, limit: float) -> dict:
    """One scenario with one client in a fresh interpreter, stopped after ``limit`` seconds."""
    command = [sys.executable, __file__, "--child", name, client]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=limit, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"status": "hung", "seconds": limit, "error": None}
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        raise SystemExit(f"{name} / {client} broke the harness: {done.stderr[-800:]}")
    return json.loads(lines[-1])


def verdict(name: str, outcome: dict) -> tuple[bool, str]:
    """Whether ``outcome`` is what the package's tests demand, and a short description."""
    expected, bound, _ = SCENARIOS[name]
    status, seconds = outcome["status"], outcome["seconds"]
    if status == "hung":
        return False, f"no end in {seconds:.0f} s"
    said = {"cached": "file cached", "refused": "refused", "wrong": "WRONG BYTES cached"}[status]
    detail = f"{said} in {seconds:.1f} s"
    if outcome.get("error") and status != "cached":
        detail += f" ({outcome['error'].split(':')[0]})"
    held = status in (("cached", "refused") if expected == "safe" else (expected,))
    held = held and seconds <= bound
    if outcome.get("token_leaked"):
        held, detail = False, detail + "; TOKEN SENT to the other server"
    if name == "cached, hub up":
        detail += f"; {outcome['requests']} request(s)"
        held = held and outcome["requests"] == 0
    return held, detail


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=60, help="seconds before a run is stopped")
    parser.add_argument("--child", nargs=2, metavar=("SCENARIO", "CLIENT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(*args.child)))
        return 0
    import huggingface_hub

    import ir_bright

    held = dict.fromkeys(CLIENTS, 0)
    rows = []
    for name, (expected, bound, what) in SCENARIOS.items():
        cells = []
        for client in CLIENTS:
            ok, detail = verdict(name, run_pair(name, client, args.limit))
            held[client] += ok
            cells.append(f"{'held' if ok else '**not held**'}: {detail}")
        sound = "cached or refused" if expected == "safe" else expected
        rows.append(f"| {name} | {what} | {sound}, ≤ {bound} s | " + " | ".join(cells) + " |")
    print(
        f"ir_bright {ir_bright.__version__} and huggingface_hub {huggingface_hub.__version__}, "
        f"each (scenario, client) in a fresh interpreter against the loopback fixture hub, "
        f"stopped after {args.limit:.0f} s.\n"
    )
    print("| scenario | the fault | a sound client | ir_bright | huggingface_hub |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    total = len(SCENARIOS)
    print(
        f"\nHeld: ir_bright {held['ir_bright']} of {total}, "
        f"huggingface_hub {held['huggingface_hub']} of {total}."
    )
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import weight

    print(
        f"\nWhat huggingface_hub adds to an ir_bright install: {weight.added('huggingface_hub')}."
    )
    return 0


if __name__ == "__main__":
    if "--child" in sys.argv:
        with contextlib.suppress(BrokenPipeError):
            sys.exit(main())
    import docpage  # benchmarks/, the script's folder

    docpage.run(main, "hub-faults")
