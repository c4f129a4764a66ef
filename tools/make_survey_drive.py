#!/usr/bin/env python3
"""Makes data/replays/survey_drive_wgs84.csv: a hand-driven-like survey drive for `scil map survey`.

No real survey recording ships with scil, so this one is derived from the bundled lap
(data/replays/lap_50kmh.csv, lane -1 of proving_ground.xodr): its path from 200 m to 355 m along
the lap (100 m of straight, then into the spiral: about 30 degrees of heading change) driven the
way a person drives a survey:
  - slowly, about 15 km/h with a slow +-10 % speed swing, moving off and stopping at
    1.5 m/s^2, sampled at 25 Hz;
  - off the lane centre by a driver's wander (0.12 m over 37 m);
  - with RTK-class position noise (uniform +-0.015 m, fixed seed);
  - standing for 2 s before moving off, and rolling back 1.5 m after stopping at the end
    (the survey drops both).
Positions go to WGS84 through the map's geoReference with pyproj, and the file is written as
an OxTS NcomToCsv-style export. Deterministic: running it again gives the same file.
"""
import csv
import math
import random
import sys
from pathlib import Path

from pyproj import Transformer

ROOT = Path(__file__).resolve().parent.parent
GEO = "+proj=tmerc +lat_0=46.8931 +lon_0=16.8397 +k=1 +x_0=0 +y_0=0 +ellps=WGS84 +units=m +no_defs"
START, END = 200.0, 355.0
RATE = 25.0
ALT = 212.4


def lap_path():
    with open(ROOT / "data/replays/lap_50kmh.csv") as f:
        rows = [(float(r["PosX"]), float(r["PosY"])) for r in csv.DictReader(f)]
    d = [0.0]
    for a, b in zip(rows, rows[1:]):
        d.append(d[-1] + math.hypot(b[0] - a[0], b[1] - a[1]))
    return rows, d


def at(rows, d, s):
    """Point and heading (rad, counter-clockwise from +x) of the lap at path length s."""
    i = max(1, min(len(d) - 1, next((k for k, v in enumerate(d) if v > s), len(d) - 1)))
    (x0, y0), (x1, y1) = rows[i - 1], rows[i]
    f = (s - d[i - 1]) / (d[i] - d[i - 1])
    return x0 + f * (x1 - x0), y0 + f * (y1 - y0), math.atan2(y1 - y0, x1 - x0)


def main(out):
    rows, d = lap_path()
    rnd = random.Random(7)
    to_wgs = Transformer.from_crs(GEO, "EPSG:4326", always_xy=True)

    def wander(s):
        u = s - START
        return 0.12 * math.sin(2 * math.pi * u / 37.0)

    def pose(s):
        x, y, h = at(rows, d, s)
        w = wander(s)
        return x - w * math.sin(h), y + w * math.cos(h)

    samples = []  # (x, y, speed m/s)
    t = 0
    # Standing 2 s at the start.
    for _ in range(int(2 * RATE)):
        samples.append((*pose(START), 0.0))
    s = START
    while s < END:
        v = 15 / 3.6 * (1 + 0.1 * math.sin(2 * math.pi * (s - START) / 60.0))
        # Moving off and stopping at 1.5 m/s^2.
        v = min(v, 0.1 + math.sqrt(3.0 * (s - START)), 0.1 + math.sqrt(3.0 * max(END - s, 0.0)))
        samples.append((*pose(s), v))
        s += v / RATE
    # Stop, then roll back 1.5 m at 0.5 m/s with the car still pointing forward.
    stop = samples[-1][:2]
    for _ in range(int(RATE)):
        samples.append((*stop, 0.0))
    back = s
    while back > s - 1.5:
        back -= 0.5 / RATE
        samples.append((*pose(back), 0.5))
    last_h = at(rows, d, START)[2]
    with open(out, "w", newline="") as f:
        f.write(" Time(), Latitude(deg), Longitude(deg), Altitude(m), Heading(deg), Speed horizontal(m/s)\n")
        for i, (x, y, v) in enumerate(samples):
            # Heading: the lap's direction at the nearest path point (the car points forward,
            # also while rolling back).
            nx, ny = x + rnd.uniform(-0.015, 0.015), y + rnd.uniform(-0.015, 0.015)
            lon, lat = to_wgs.transform(nx, ny)
            hx, hy = samples[min(i + 1, len(samples) - 1)][:2]
            px, py = samples[max(i - 1, 0)][:2]
            h = math.atan2(hy - py, hx - px) if (hx, hy) != (px, py) else None
            if h is None or v == 0.5:
                # Standing or rolling back: the heading the car last drove with.
                h = last_h
            last_h = h
            heading = (90.0 - math.degrees(h)) % 360.0
            f.write(f"{387000.0 + i / RATE:.3f},{lat:.9f},{lon:.9f},{ALT:.3f},{heading:.3f},{v:.4f}\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ROOT / "data/replays/survey_drive_wgs84.csv")
