#!/usr/bin/env python3
"""A page's document after load in headless Firefox, as headless Chromium's
--dump-dom gives it (report-check ffhtml): Firefox started on a fresh
profile with Marionette (its own remote protocol, built in: length-prefixed
JSON over TCP, on a free port the profile's MarionetteActivePort names),
the page opened at URL, its <html> serialized once its script says it is
done (data-report-state "ready" or "error"; else after 30 s).

  ff-dom.py URL PROFILE_DIR

Prints the document on stdout; exits 1 with a line on stderr when Firefox
cannot be driven.
"""
import json
import os
import socket
import subprocess
import sys
import time

url, profile = sys.argv[1], sys.argv[2]


def fail(msg):
    sys.stderr.write("ff-dom: %s\n" % msg)
    sys.exit(1)


class Marionette:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.buf = b""
        self.id = 0
        self.read()  # the greeting: applicationType, marionetteProtocol

    def read(self):
        while b":" not in self.buf:
            more = self.sock.recv(65536)
            if not more:
                fail("Firefox closed the connection")
            self.buf += more
        n, rest = self.buf.split(b":", 1)
        n = int(n)
        while len(rest) < n:
            more = self.sock.recv(1 << 20)
            if not more:
                fail("Firefox closed the connection")
            rest += more
        self.buf = rest[n:]
        return json.loads(rest[:n])

    def send(self, name, params):
        self.id += 1
        body = json.dumps([0, self.id, name, params]).encode()
        self.sock.sendall(str(len(body)).encode() + b":" + body)

    def call(self, name, params):
        self.send(name, params)
        while True:
            r = self.read()
            if r[0] == 1 and r[1] == self.id:
                if r[2]:
                    fail("%s: %s" % (name, r[2].get("message", r[2]) if isinstance(r[2], dict) else r[2]))
                return r[3]


with open(os.path.join(profile, "user.js"), "w") as f:
    f.write('user_pref("marionette.port", 0);\n')
log = open(os.path.join(profile, "firefox.log"), "w")
ff = subprocess.Popen(["firefox", "--headless", "--marionette", "--profile", profile, "about:blank"],
                      stdout=log, stderr=log)
try:
    port_file = os.path.join(profile, "MarionetteActivePort")
    for _ in range(600):
        if os.path.exists(port_file) and open(port_file).read().strip():
            break
        if ff.poll() is not None:
            fail("Firefox exited (status %d) before it listened" % ff.returncode)
        time.sleep(0.1)
    else:
        fail("Firefox did not listen in 60 s")
    m = Marionette(int(open(port_file).read()))
    m.call("WebDriver:NewSession", {})
    m.call("WebDriver:Navigate", {"url": url})
    state = "return document.documentElement.getAttribute('data-report-state')"
    for _ in range(300):
        if m.call("WebDriver:ExecuteScript", {"script": state, "args": []}).get("value") in ("ready", "error"):
            break
        time.sleep(0.1)
    dom = m.call("WebDriver:ExecuteScript", {"script": "return document.documentElement.outerHTML", "args": []})
    sys.stdout.write(dom["value"] + "\n")
    m.send("Marionette:Quit", {})
    ff.wait(timeout=30)
finally:
    if ff.poll() is None:
        ff.kill()
        ff.wait()
