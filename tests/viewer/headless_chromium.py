"""A headless Chromium page driven over the DevTools protocol: open a URL, run JavaScript,
take screenshots. Enough for the viewer's browser test; no browser-automation package."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

#: Chromium's names on Debian/Ubuntu and elsewhere, in the order tried.
NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")


def find() -> str | None:
    """The Chromium executable on PATH, or None."""
    return next((p for p in map(shutil.which, NAMES) if p), None)


class Page:
    """One headless Chromium tab (software WebGL) of the given window size."""

    def __init__(self, executable: str, width: int = 900, height: int = 700, start_timeout: float = 60.0) -> None:
        from websockets.sync.client import connect

        self._dir = tempfile.TemporaryDirectory(ignore_cleanup_errors=True)  # Chromium's helpers may still be writing
        self._proc = subprocess.Popen(
            [executable, "--headless=new", "--no-sandbox", "--hide-scrollbars", "--use-angle=swiftshader",
             "--enable-unsafe-swiftshader", "--no-first-run", f"--window-size={width},{height}",
             f"--user-data-dir={self._dir.name}", "--remote-debugging-port=0", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = Path(self._dir.name) / "DevToolsActivePort"
        deadline = time.monotonic() + start_timeout
        while not (port_file.is_file() and port_file.read_text().strip()):
            if time.monotonic() > deadline or self._proc.poll() is not None:
                self.close()
                raise RuntimeError(f"{executable} did not start its DevTools server")
            time.sleep(0.1)
        port = port_file.read_text().split()[0]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as r:
            target = next(t for t in json.load(r) if t["type"] == "page")
        self._ws = connect(target["webSocketDebuggerUrl"], max_size=None)
        self._id = 0

    def call(self, method: str, **params) -> dict:
        """Send one DevTools command and return its result (events in between are skipped)."""
        self._id += 1
        self._ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
        while True:
            msg = json.loads(self._ws.recv())
            if msg.get("id") == self._id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg["result"]

    def open(self, url: str) -> None:
        self.call("Page.navigate", url=url)

    def evaluate(self, expression: str):
        """The JSON value of a JavaScript expression in the page."""
        return self.call("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def screenshot(self) -> bytes:
        """The tab as PNG bytes."""
        return base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])

    def close(self) -> None:
        if hasattr(self, "_ws"):
            self._ws.close()
        self._proc.terminate()
        self._proc.wait(timeout=10)
        self._dir.cleanup()
