#!/usr/bin/python3
# How long a stop takes (docs/hardening.md, "A stop inside a step"):
# stop_latency.py TOOL DIR ARGS... runs TOOL ARGS in DIR, sends SIGTERM
# 1 s after its first progress line ("iter "), and prints the seconds
# from the signal to the moment the partial model's file (MODEL.partial
# or its temporary) appears in DIR, which is as tsgs_train returns, and
# to the exit. Any old MODEL* files in DIR ("w.model" by default: the
# STOP_MODEL variable) are removed first. STOP_AFTER=S sends it S seconds
# after the start instead (runs that print no "iter " line, such as the
# default's grid on wide rows); STOP_SIGNAL=INT sends SIGINT (Ctrl-C).
import os, signal, subprocess, sys, threading, time

tool, out, args = sys.argv[1], sys.argv[2], sys.argv[3:]
model = os.environ.get("STOP_MODEL", "w.model")
for f in os.listdir(out):
    if f.startswith(model):
        os.remove(os.path.join(out, f))
p = subprocess.Popen([tool] + args, stderr=subprocess.PIPE, text=True,
                     cwd=out)
first = threading.Event()
lines = []


def reader():
    for line in p.stderr:
        lines.append((time.monotonic(), line.rstrip()))
        if line.startswith("iter "):
            first.set()


threading.Thread(target=reader, daemon=True).start()
t0 = time.monotonic()
after = os.environ.get("STOP_AFTER")
if after:
    time.sleep(float(after))
    t_first = t0
else:
    first.wait()
    t_first = time.monotonic()
    time.sleep(1.0)
t_sig = time.monotonic()
p.send_signal(signal.SIGINT if os.environ.get("STOP_SIGNAL") == "INT"
              else signal.SIGTERM)
t_write = None
while p.poll() is None:
    if t_write is None and any(f.startswith(model + ".partial")
                               for f in os.listdir(out)):
        t_write = time.monotonic()
    time.sleep(0.002)
t_exit = time.monotonic()
time.sleep(0.1)
print("first progress line at %.2f s; signal at %.2f s"
      % (t_first - t0, t_sig - t0))
print("signal -> partial model file appears: %s s"
      % ("%.3f" % (t_write - t_sig) if t_write else "none"))
print("signal -> exit: %.3f s (status %d)" % (t_exit - t_sig, p.returncode))
for t, line in lines[-3:]:
    print("  [%.2f] %s" % (t - t0, line))
