"""The recordings of the first-day browser test, written by independent writers from the bundled
replays: asammdf writes the CPNA 30 km/h drive as MDF4 physical channels, the OxTS export of the
same drive becomes a Racelogic VBOX file (lat/long in minutes, longitude positive west), and the
CSV gets a speed header the service does not know (VelocityKmh).

    python3 firstday_files.py DATA_DIR OUT_DIR
"""
import csv
import os
import sys

import numpy as np
from asammdf import MDF, Signal

data, out = sys.argv[1], sys.argv[2]
src = os.path.join(data, "replays", "cpna75_30kmh.csv")

rows = list(csv.DictReader(open(src)))
t = np.array([float(r["Time"]) for r in rows])
units = {"PosX": "m", "PosY": "m", "Heading": "deg", "Velocity": "km/h",
         "Steering_Angle": "deg", "Brake_Light": ""}
sigs = []
for name, unit in units.items():
    v = np.array([float(r[name]) for r in rows])
    if name == "Brake_Light":
        v = v.astype(np.uint8)
    sigs.append(Signal(v, t, name=name, unit=unit))
m = MDF(version="4.10")
m.append(sigs, comment="scil first-day test")
m.save(os.path.join(out, "cpna75.mf4"), overwrite=True)

text = open(src).read().replace("Velocity", "VelocityKmh", 1)
open(os.path.join(out, "cpna75_odd_header.csv"), "w").write(text)

wgs = list(csv.reader(open(os.path.join(data, "replays", "cpna75_30kmh_wgs84.csv"))))
head = [h.strip() for h in wgs[0]]
col = {h: i for i, h in enumerate(head)}
with open(os.path.join(out, "cpna75.vbo"), "w", newline="\r\n") as f:
    f.write("File created on 27/11/2026 at 10:00:00\n\n[header]\nsatellites\ntime\nlatitude\nlongitude\nvelocity kmh\nheading\nheight\n\n")
    f.write("[channel units]\n\n\n\nkmh\ndeg\nm\n\n[comments]\nOxTS drive, CPNA-75 30 km/h\n\n[column names]\nsats time lat long velocity heading height\n\n[data]\n")
    for r in wgs[1:]:
        tod = float(r[col["Time()"]]) % 86400.0
        hh, rem = divmod(tod, 3600.0)
        mm, ss = divmod(rem, 60.0)
        lat = float(r[col["Latitude(deg)"]])
        lon = float(r[col["Longitude(deg)"]])
        v = float(r[col["Speed horizontal(m/s)"]]) * 3.6
        f.write("011 %02d%02d%05.2f %+012.7f %+013.7f %07.3f %06.2f %+09.2f\n" % (
            hh, mm, ss, lat * 60.0, -lon * 60.0, v, float(r[col["Heading(deg)"]]), float(r[col["Altitude(m)"]])))
print("ok")
