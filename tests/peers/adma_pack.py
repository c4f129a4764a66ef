#!/usr/bin/env python3
"""Writes a raw GeneSys ADMAnet v3.3.3 recording of a drive, independently of scil's reader.

The packet is laid out by ctypes (the C ABI, as GeneSys's ROS driver memcpy's a datagram into
`struct AdmaDataV333`) from the member declarations of GeneSys's published headers
(third_party/adma_ros_driver/data_structs.hpp and adma_data_v333.hpp), read here with a
few lines of its own; the factors are GeneSys's parser's (getScaledValue in
adma2ros_parser_v335.cpp, the same for v3.3.3): position 1e-7 deg, height 0.01 m, yaw 0.01 deg,
horizontal velocity 0.005 m/s, body acceleration 0.0004 g, body rates 0.01 deg/s.

usage: adma_pack.py DRIVE.csv OUT.adma EXPECTED.csv [--malformed]

DRIVE.csv: an OxTS NcomToCsv-style WGS84 export (Time, Latitude, Longitude, Altitude, Heading,
Speed horizontal). Acceleration and yaw rate are the drive's own differences (speed and heading
between consecutive rows). EXPECTED.csv gets, per packet with a sample, the values written
(the drive's, before rounding to the format's steps). With --malformed, three packets that are
not packets scil reads are put among them: one cut short, one with another id, one of
format version 3.2.0.
"""
import csv
import ctypes
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HDR = ROOT / "third_party" / "adma_ros_driver"
TYPES = {"char": ctypes.c_char, "unsigned char": ctypes.c_ubyte, "int8_t": ctypes.c_int8,
         "uint8_t": ctypes.c_uint8, "int16_t": ctypes.c_int16, "uint16_t": ctypes.c_uint16,
         "int32_t": ctypes.c_int32, "uint32_t": ctypes.c_uint32}
G = 9.80665


def declare(text, known):
    text = re.sub(r"//[^\n]*", "", text)
    for name, body in re.findall(r"struct\s+(\w+)\s*\{(.*?)\};", text, re.S):
        fields = []
        for decl in filter(None, (" ".join(d.split()) for d in body.split(";"))):
            typ, member, n = re.fullmatch(r"(.+?)\s+(\w+)(?:\[(\d+)\])?", decl).groups()
            t = known[typ]
            fields.append((member, t * int(n) if n else t))
        known[name] = type(name, (ctypes.Structure,), {"_fields_": fields})
    return known


known = dict(TYPES)
declare((HDR / "data_structs.hpp").read_text(), known)
declare((HDR / "adma_data_v333.hpp").read_text(), known)
Packet = known["AdmaDataV333"]
assert ctypes.sizeof(Packet) == 856, ctypes.sizeof(Packet)


def num(row, *names):
    for k, v in row.items():
        if k.strip().split("(")[0].lower() in names:
            return float(v)
    raise KeyError(names)


def main():
    drive, out, expected = sys.argv[1], sys.argv[2], sys.argv[3]
    malformed = "--malformed" in sys.argv
    with open(drive, newline="") as f:
        rows = list(csv.DictReader(f))
    t = [num(r, "time") for r in rows]
    lat = [num(r, "latitude") for r in rows]
    lon = [num(r, "longitude") for r in rows]
    alt = [num(r, "altitude") for r in rows]
    hdg = [num(r, "heading") for r in rows]
    spd = [num(r, "speed horizontal", "speed") for r in rows]
    week = 2400
    blobs, exp = [], []
    for i in range(len(rows)):
        j = min(i + 1, len(rows) - 1)
        dt = t[j] - t[i]
        acc = (spd[j] - spd[i]) / dt if dt > 0 else 0.0
        dh = (hdg[j] - hdg[i] + 540.0) % 360.0 - 180.0
        rate_cw = dh / dt if dt > 0 else 0.0  # deg/s, clockwise (body z down)
        p = Packet()
        p.staticHeader.genesysid = b"GBIN"
        p.staticHeader.formatversion = b"\x03\x03\x03\x00"
        p.gnssStatus = 8  # RTK precise
        p.kfStatus = 1  # Kalman filter settled
        p.instimeweek = week
        p.instimemsec = round(t[i] * 1000)
        p.leapseconds = 18
        p.insPosAbs.latitude = round(lat[i] * 1e7)
        p.insPosAbs.longitude = round(lon[i] * 1e7)
        p.insHeight = round(alt[i] * 100)
        p.insyaw = round(hdg[i] * 100) % 36000
        p.insVelHor.x = round(spd[i] / 0.005)
        p.accBody.x = round(acc / G / 0.0004)
        p.ratesBody.z = round(rate_cw / 0.01)
        blobs.append(bytes(p))
        exp.append((t[i], lat[i], lon[i], alt[i], hdg[i], spd[i], acc, rate_cw))
        if malformed and i == 10:
            blobs.append(bytes(p)[:100])  # cut short
        if malformed and i == 20:
            q = Packet.from_buffer_copy(bytes(p))
            q.staticHeader.genesysid = b"XXXX"
            blobs.append(bytes(q))  # another id
        if malformed and i == 30:
            q = Packet.from_buffer_copy(bytes(p))
            q.staticHeader.formatversion = b"\x03\x02\x00\x00"
            blobs.append(bytes(q))  # a version scil does not read
    Path(out).write_bytes(b"".join(blobs))
    with open(expected, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["time_s", "lat_deg", "lon_deg", "alt_m", "heading_deg", "speed_mps",
                    "accel_mps2", "rate_cw_dps"])
        w.writerows(exp)
    # The datagrams one per line (hex), for sending them live one by one.
    with open(out + ".hex", "w") as f:
        f.write("\n".join(b.hex() for b in blobs) + "\n")


if __name__ == "__main__":
    main()
