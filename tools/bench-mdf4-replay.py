#!/usr/bin/env python3
"""Replay throughput of an MDF4 recording against the same recording as CSV (figures, not a test).

The long CSV is `scil bench replay`'s own (a bundled replay repeated into one continuous drive, see
src/bench/replay.rs), which also prints the CSV path's replay/plain ratio. asammdf writes the same
rows as MDF4 (one channel per column, the time as master). Both are replayed with
`scil replay --speed max`, in turns, ROUNDS times each; the medians and their ratio are printed.

    python3 tools/bench-mdf4-replay.py target/release/scil [REPEAT] [ROUNDS]
"""
import csv
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from asammdf import MDF, Signal

scil = sys.argv[1]
repeat = sys.argv[2] if len(sys.argv) > 2 else "200"
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
root = pathlib.Path(__file__).resolve().parent.parent
scenario = root / "data/scenarios/cpna75_30kmh.toml"
work = pathlib.Path(tempfile.mkdtemp(prefix="mdf4-bench-"))
long_csv = work / "long.csv"
subprocess.run([scil, "bench", "replay", str(root / "data/replays/cpna75_30kmh.csv"),
                "--scenario", str(scenario), "--repeat", repeat, "--rounds", "3",
                "--keep", str(long_csv)], check=True)

rows = list(csv.DictReader(open(long_csv)))
t = np.array([float(r["Time"]) for r in rows])
units = {"PosX": "m", "PosY": "m", "Heading": "deg", "Velocity": "km/h",
         "Steering_Angle": "deg", "Brake_Light": ""}
sigs = []
for name, unit in units.items():
    v = np.array([float(r[name]) for r in rows])
    if name == "Brake_Light":
        v = v.astype(np.uint8)
    sigs.append(Signal(v, t, name=name, unit=unit))
mdf_path = work / "long.mf4"
m = MDF(version="4.10")
m.append(sigs, comment="scil replay benchmark")
m.save(mdf_path, overwrite=True)
print(f"{len(rows)} rows: CSV {long_csv.stat().st_size / 1e6:.1f} MB, MDF4 {mdf_path.stat().st_size / 1e6:.1f} MB")


def replay(path):
    t0 = time.perf_counter()
    subprocess.run([scil, "replay", str(path), "--scenario", str(scenario), "--speed", "max", "--json"],
                   check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


csv_t, mdf_t = [], []
for _ in range(rounds):
    csv_t.append(replay(long_csv))
    mdf_t.append(replay(mdf_path))
c, d = statistics.median(csv_t), statistics.median(mdf_t)
print(f"scil replay, median of {rounds}: CSV {c:.3f} s ({len(rows) / c:,.0f} rows/s), "
      f"MDF4 {d:.3f} s ({len(rows) / d:,.0f} rows/s)")
print(f"MDF4 replay throughput / CSV replay throughput: {c / d:.2f}")
