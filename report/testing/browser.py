"""Drive Debian's headless Chromium over the DevTools protocol, stdlib only.

The report's browser tests use this to load a page, click and type on it as a
user would, read its DOM and collect its console errors and network requests.
Chromium is spoken to over --remote-debugging-pipe (NUL-terminated JSON, read
by Chromium on fd 3, written on fd 4) rather than a websocket: no port is
opened, nothing races to connect, and no third-party package is needed.

    with Browser() as b:
        b.open("out/report.html")
        b.click("#run-table th")
        assert b.console_errors() == []

Run as a script with an HTML file to see what a page logs:
    python3 report/testing/browser.py out/report.html
"""

import base64
import fcntl
import json
import os
import pathlib
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")

# Chromium's stderr lines that say nothing about why it died: it looks for
# D-Bus, absent from containers, and Debian's wrapper script misreads findmnt
# when /dev/shm is listed twice ("[: 25276026880: unexpected operator").
_STDERR_NOISE = ("dbus/", "unexpected operator")


def event_deadline(default=120):
    """Seconds to wait for something a page does (a load, a click's effect):
    half the Bazel test's timeout (TEST_TIMEOUT) inside a test, else
    `default`. Such events take well under a second on an idle machine; the
    deadline only stops a test on a machine that makes no progress, so it is
    generous and leaves the test time to report what it waited for."""
    timeout = os.environ.get("TEST_TIMEOUT", "")
    return int(timeout) // 2 if timeout.isdigit() else default


class BrowserError(RuntimeError):
    """Chromium died, refused a command, or a page failed to load."""


class JavaScriptError(BrowserError):
    """An evaluated expression threw."""


def _to_url(target):
    # Tests usually hold a file path, not a URL.
    if "://" in target or target.startswith(("about:", "data:")):
        return target
    return pathlib.Path(target).resolve().as_uri()


def _remote_object_text(obj):
    if "value" in obj:
        return obj["value"] if isinstance(obj["value"], str) else json.dumps(obj["value"])
    return obj.get("unserializableValue") or obj.get("description") or obj.get("type", "?")


def _exception_text(details):
    """'Uncaught Error: boom (at url:line:col)', then the JS stack if there is one."""
    text = details.get("text", "exception")
    message, _, stack = (_remote_object_text(details["exception"]) if "exception" in details else "").partition("\n")
    if message not in text:  # Promise rejections already carry the message in text.
        text += " " + message
    where = details.get("url") or "<evaluated>"
    text += f" (at {where}:{details.get('lineNumber', 0) + 1}:{details.get('columnNumber', 0) + 1})"
    return text + ("\n" + stack if stack else "")


def _temp_parent():
    # Chromium puts a Unix socket in its TMPDIR, and socket paths are limited
    # to 107 bytes: Bazel's TEST_TMPDIR is often longer than that allows, so
    # /tmp comes first when it can be written (under `bazel test` too).
    for parent in ("/tmp", os.environ.get("TEST_TMPDIR"), tempfile.gettempdir()):
        if parent and len(parent) < 40 and os.access(parent, os.W_OK):
            return parent
    return os.environ.get("TEST_TMPDIR") or tempfile.gettempdir()


class Browser:
    def __init__(self, width=1400, height=900, timeout=None):
        # Chromium's start takes a second on an idle machine and over 30 s
        # beside three valgrind tests on two cores: wait as long as events.
        timeout = timeout or event_deadline()
        self._proc = self._stderr = None
        self._rfd = self._wfd = None
        self._tmp = tempfile.mkdtemp(prefix="browser-", dir=_temp_parent())
        self._buf = bytearray()
        self._scanned = 0
        self._next_id = 0
        self._replies = {}
        self._session = None
        self._loads = 0
        self._errors = []
        self._requests = []
        self._page_url = None
        try:
            self._launch(width, height)
            self._attach(width, height, timeout)
        except BaseException:
            self.close()
            raise

    def _launch(self, width, height):
        env = dict(os.environ)
        # HOME may be unset or read-only in a test sandbox; Chromium (and the
        # Debian wrapper script) write caches and crash reports under it. It
        # also needs a writable TMPDIR, for its profile lock's socket and, with
        # --disable-dev-shm-usage, its shared memory; /tmp may be read-only.
        for var, sub in (("HOME", "home"), ("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache"),
                         ("TMPDIR", "tmp")):
            env[var] = os.path.join(self._tmp, sub)
            os.mkdir(env[var])
        args = [
            CHROMIUM, "--headless=new", "--remote-debugging-pipe",
            "--no-sandbox",  # Chromium refuses to start as root with its sandbox on.
            "--disable-gpu", "--no-first-run", "--no-default-browser-check",
            "--disable-extensions", "--disable-background-networking",
            # Containers give /dev/shm 64 MB, too little for Chromium; the
            # Debian wrapper's own check for this breaks on some machines.
            "--disable-dev-shm-usage",
            # Scrollbars would take 15 px off the layout width of long pages only.
            "--hide-scrollbars",
            "--user-data-dir=" + os.path.join(self._tmp, "profile"),
            f"--window-size={width},{height}", "about:blank",
        ]
        to_child_r, self._wfd = os.pipe()
        self._rfd, from_child_w = os.pipe()

        def place_pipes():  # Runs in the child, between fork and exec.
            # Copy above 10 first so neither dup2 overwrites the other's source.
            high_r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
            high_w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(high_r, 3)  # dup2 makes 3 and 4 inheritable; the rest are close-on-exec.
            os.dup2(high_w, 4)

        self._stderr = open(os.path.join(self._tmp, "chromium.log"), "wb")
        try:
            self._proc = subprocess.Popen(
                args, env=env, stdin=subprocess.DEVNULL, stdout=self._stderr, stderr=self._stderr,
                close_fds=False, preexec_fn=place_pipes,
                start_new_session=True)  # Its own group, so close() can reap its helpers.
        finally:
            # Only the child keeps its ends: EOF on _rfd then means Chromium exited.
            os.close(to_child_r)
            os.close(from_child_w)

    def _attach(self, width, height, timeout):
        deadline = time.monotonic() + timeout
        while True:
            try:
                targets = self._call("Target.getTargets", session=False, timeout=timeout)["targetInfos"]
            except TimeoutError as e:
                raise TimeoutError(f"{e}; its stderr ends:\n{self._stderr_tail()}") from None
            pages = [t for t in targets if t["type"] == "page"]
            if pages:
                break
            if time.monotonic() > deadline:
                raise BrowserError("Chromium opened no page")
            time.sleep(0.05)
        self._session = self._call("Target.attachToTarget", {"targetId": pages[0]["targetId"], "flatten": True},
                                   session=False)["sessionId"]
        for domain in ("Runtime", "Page", "Log", "Network"):
            self._call(domain + ".enable")
        # --window-size counts a window frame even when headless (900 tall
        # gives a 757 px viewport): make the viewport itself width x height.
        self._call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                          "deviceScaleFactor": 1, "mobile": False})
        # Let about:blank finish loading, so its load event cannot be taken
        # for that of the first open().
        self.wait_for("document.readyState === 'complete'", timeout)

    # --- the protocol ---

    def _died(self):
        try:
            code = self._proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = "still running"
        raise BrowserError(f"Chromium exited unexpectedly (status {code}); its stderr ends:\n{self._stderr_tail()}")

    def _stderr_tail(self):
        self._stderr.flush()
        with open(self._stderr.name, "rb") as log:
            lines = [line for line in log.read().decode(errors="replace").splitlines()
                     if not any(noise in line for noise in _STDERR_NOISE)]
        return "\n".join(lines[-20:])

    def _write(self, message):
        data = json.dumps(message).encode() + b"\0"
        try:
            while data:
                data = data[os.write(self._wfd, data):]
        except BrokenPipeError:
            self._died()

    def _pump(self, deadline):
        """Reads and dispatches one message; False if none came by the deadline."""
        while (end := self._buf.find(b"\0", self._scanned)) < 0:
            self._scanned = len(self._buf)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if not select.select([self._rfd], [], [], remaining)[0]:
                continue
            chunk = os.read(self._rfd, 1 << 20)
            if not chunk:
                self._died()
            self._buf += chunk
        message = json.loads(self._buf[:end])
        del self._buf[:end + 1]
        self._scanned = 0
        if "id" in message:
            self._replies[message["id"]] = message
        elif message.get("sessionId") == self._session:
            self._on_event(message["method"], message.get("params", {}))
        return True

    def _call(self, method, params=None, session=True, timeout=None):
        timeout = timeout or event_deadline()
        self._next_id += 1
        call_id = self._next_id
        message = {"id": call_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self._session
        self._write(message)
        deadline = time.monotonic() + timeout
        while call_id not in self._replies:
            if not self._pump(deadline):
                raise TimeoutError(f"Chromium did not answer {method} within {timeout} s")
        reply = self._replies.pop(call_id)
        if "error" in reply:
            error = reply["error"]
            raise BrowserError(f"{method} failed: {error.get('message')} {error.get('data', '')}".rstrip())
        return reply.get("result", {})

    def _on_event(self, method, params):
        if method == "Page.loadEventFired":
            self._loads += 1
        elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
            text = " ".join(_remote_object_text(a) for a in params.get("args", []))
            frames = params.get("stackTrace", {}).get("callFrames", [])
            where = f" (at {frames[0]['url']}:{frames[0]['lineNumber'] + 1})" if frames else ""
            self._errors.append(f"console.{params['type']}: {text}{where}")
        elif method == "Runtime.exceptionThrown":
            self._errors.append(_exception_text(params["exceptionDetails"]))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            entry = params["entry"]
            where = f" ({entry['url']})" if entry.get("url") else ""
            self._errors.append(f"{entry['source']}: {entry['text']}{where}")
        elif method == "Network.requestWillBeSent":
            url = params["request"]["url"]
            if url != self._page_url and not url.startswith("data:"):
                self._requests.append(url)
        elif method == "Page.javascriptDialogOpening":
            # An unanswered alert() would block every later evaluate.
            self._errors.append(f"dialog {params['type']}: {params['message']}")
            self._write({"id": 0, "sessionId": self._session,
                         "method": "Page.handleJavaScriptDialog", "params": {"accept": True}})

    def _drain(self):
        while self._pump(time.monotonic()):
            pass

    # --- the API ---

    def open(self, url, timeout=None):
        """Loads url (or a file path) and waits for its load event."""
        timeout = timeout or event_deadline()
        self._page_url = _to_url(url)
        loads = self._loads
        result = self._call("Page.navigate", {"url": self._page_url}, timeout=timeout)
        if result.get("errorText"):
            raise BrowserError(f"cannot open {self._page_url}: {result['errorText']}")
        deadline = time.monotonic() + timeout
        while self._loads == loads:
            if not self._pump(deadline):
                raise TimeoutError(f"{self._page_url} did not finish loading within {timeout} s")

    def evaluate(self, expression, timeout=None):
        """The JSON value of expression (promises awaited); JavaScriptError if it threw."""
        timeout = timeout or event_deadline()
        result = self._call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                 "awaitPromise": True}, timeout=timeout)
        if "exceptionDetails" in result:
            raise JavaScriptError(f"{expression!r} threw: {_exception_text(result['exceptionDetails'])}")
        value = result["result"]
        return value.get("value", value.get("unserializableValue"))

    def wait_for(self, expression, timeout=None):
        """Polls expression until it is truthy, and returns its value."""
        timeout = timeout or event_deadline()
        deadline = time.monotonic() + timeout
        while not (value := self.evaluate(expression, timeout)):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{expression!r} was still {value!r} after {timeout} s")
            time.sleep(0.05)
        return value

    def _element(self, selector, action):
        # The JS is built with json.dumps, so any selector quotes itself safely.
        return self.evaluate(f"""(() => {{
            const el = document.querySelector({json.dumps(selector)});
            if (!el) return null;
            {action}
        }})()""")

    def click(self, selector):
        """A real left click at the element's centre, after scrolling it into view."""
        box = self._element(selector, """el.scrollIntoView({block: 'center', inline: 'center'});
            const r = el.getBoundingClientRect();
            return {x: r.left + r.width / 2, y: r.top + r.height / 2, w: r.width, h: r.height};""")
        if box is None:
            raise BrowserError(f"{selector!r} matches no element")
        if box["w"] <= 0 or box["h"] <= 0:
            raise BrowserError(f"{selector!r} has no size, so it cannot be clicked")
        self.click_at(box["x"], box["y"])

    def click_at(self, x, y):
        """A real left click at viewport coordinates (CSS pixels)."""
        at = {"x": x, "y": y}
        self._call("Input.dispatchMouseEvent", {"type": "mouseMoved", **at})
        self._call("Input.dispatchMouseEvent", {"type": "mousePressed", "button": "left",
                                                "buttons": 1, "clickCount": 1, **at})
        self._call("Input.dispatchMouseEvent", {"type": "mouseReleased", "button": "left",
                                                "buttons": 0, "clickCount": 1, **at})

    def type_text(self, selector, text):
        """Focuses the element and types text at its caret (firing 'input' events)."""
        focused = self._element(selector, "el.focus(); return document.activeElement === el;")
        if not focused:
            raise BrowserError(f"{selector!r} " + ("matches no element" if focused is None else "cannot take focus"))
        self._call("Input.insertText", {"text": text})

    def screenshot(self, path, max_width=1400, max_height=3000, top=0):
        """Writes a PNG of the page from `top` down, cut to max_width x
        max_height CSS pixels."""
        size = self._call("Page.getLayoutMetrics")["cssContentSize"]
        clip = {"x": 0, "y": top, "scale": 1, "width": min(size["width"], max_width),
                "height": max(1, min(size["height"] - top, max_height))}
        shot = self._call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                     "clip": clip})
        pathlib.Path(path).write_bytes(base64.b64decode(shot["data"]))

    def console_errors(self):
        """Console errors, failed asserts, uncaught exceptions and failed loads so far."""
        self._drain()
        return list(self._errors)

    def requests(self):
        """URLs the page requested, other than itself and data: URLs."""
        self._drain()
        return list(self._requests)

    def close(self):
        """Closes Chromium (killing it if it lingers) and deletes its profile."""
        proc = self._proc
        if proc is not None:
            try:
                if proc.poll() is None:
                    self._next_id += 1
                    self._write({"id": self._next_id, "method": "Browser.close"})
            except BrowserError:
                pass
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            try:  # Renderers and the zygote, should any outlive the browser.
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            self._proc = None
        for fd in (self._rfd, self._wfd):
            if fd is not None:
                os.close(fd)
        self._rfd = self._wfd = None
        if self._stderr:
            self._stderr.close()
        shutil.rmtree(self._tmp, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} PAGE.html")
    with Browser() as browser:
        browser.open(sys.argv[1])
        print("title:", json.dumps(browser.evaluate("document.title")))
        print("console errors:", *browser.console_errors() or ["none"], sep="\n  ")
        print("requests:", *browser.requests() or ["none"], sep="\n  ")
