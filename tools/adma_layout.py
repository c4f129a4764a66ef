#!/usr/bin/env python3
"""Writes src/ingest/adma/layout.rs: the byte layout of the GeneSys ADMAnet data packets that
scil reads, generated from GeneSys's own header structs (third_party/adma_ros_driver).

Offsets: the packet structs of adma_data_v333.hpp, adma_data_v334.hpp and adma_data_v335.hpp
(with data_structs.hpp), laid out by the C rules the ROS driver relies on when it memcpy's a
datagram into them (each member at its natural alignment; a struct aligned as its widest
member). Each struct must come to the 856 bytes of a packet, or this script fails.
Scales: the `getScaledValue(adma_data.FIELD, FACTOR)` lines of adma2ros_parser_v335.cpp, the same
factors GeneSys's v3.3.3 parser applies (parseScaledData).

Run from the repository root: python3 tools/adma_layout.py (then cargo fmt). Deterministic.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "third_party" / "adma_ros_driver"
OUT = ROOT / "src" / "ingest" / "adma" / "layout.rs"

PRIMS = {
    "char": ("u8", 1), "unsigned char": ("u8", 1), "int8_t": ("i8", 1), "uint8_t": ("u8", 1),
    "int16_t": ("i16", 2), "uint16_t": ("u16", 2), "int32_t": ("i32", 4), "uint32_t": ("u32", 4),
}

# scil's name → (member path in the v3.3.3 struct, path in v3.3.4/v3.3.5, path of its scale in
# the v3.3.5 parser or None for a raw integer).
CHANNELS = [
    ("genesys_id", "staticHeader.genesysid", None, None),
    ("format_version", "staticHeader.formatversion", None, None),
    ("gnss_status", "gnssStatus", None, None),
    ("signal_in_status", "signalInStatus", None, None),
    ("misc_status", "miscStatus", None, None),
    ("kf_status", "kfStatus", None, None),
    ("data_error1", "dataError1", None, None),
    ("data_error2", "dataError2", None, None),
    ("data_warn1", "dataWarn1", None, None),
    ("data_error3", "dataError3", None, None),
    ("rate_body_x", "ratesBody.x", None, "ratesBody.x"),
    ("rate_body_y", "ratesBody.y", None, "ratesBody.y"),
    ("rate_body_z", "ratesBody.z", None, "ratesBody.z"),
    ("acc_body_x", "accBody.x", None, "accBody.x"),
    ("acc_body_y", "accBody.y", None, "accBody.y"),
    ("acc_body_z", "accBody.z", None, "accBody.z"),
    ("ins_roll", "insroll", None, "insroll"),
    ("ins_pitch", "inspitch", None, "inspitch"),
    ("ins_yaw", "insyaw", None, "insyaw"),
    ("ins_height", "insHeight", None, "insHeight"),
    ("ins_time_msec", "instimemsec", None, None),
    ("ins_time_week", "instimeweek", None, None),
    ("leap_seconds", "leapseconds", None, None),
    ("ins_lat_abs", "insPosAbs.latitude", "insPos.pos_abs.latitude", "insPos.pos_abs.latitude"),
    ("ins_lon_abs", "insPosAbs.longitude", "insPos.pos_abs.longitude", "insPos.pos_abs.longitude"),
    ("ins_vel_hor_x", "insVelHor.x", None, "insVelHor.x"),
    ("ins_vel_hor_y", "insVelHor.y", None, "insVelHor.y"),
    ("ins_vel_hor_z", "insVelHor.z", None, "insVelHor.z"),
]

VERSIONS = [("V3_3_3", (3, 3, 3), "adma_data_v333.hpp", "AdmaDataV333"),
            ("V3_3_4", (3, 3, 4), "adma_data_v334.hpp", "AdmaDataV334"),
            ("V3_3_5", (3, 3, 5), "adma_data_v335.hpp", "AdmaDataV335")]


def structs(text):
    """{name: [(type, member, count)]} of every `struct Name { … };` in a header."""
    text = re.sub(r"//[^\n]*", "", text)
    out = {}
    for m in re.finditer(r"struct\s+(\w+)\s*\{(.*?)\};", text, re.S):
        members = []
        for decl in m.group(2).split(";"):
            decl = " ".join(decl.split())
            if not decl:
                continue
            d = re.fullmatch(r"(.+?)\s+(\w+)(?:\[(\d+)\])?", decl)
            if not d:
                sys.exit(f"cannot read the member '{decl}' of {m.group(1)}")
            members.append((d.group(1), d.group(2), int(d.group(3) or 1)))
        out[m.group(1)] = members
    return out


def layout(all_structs, name):
    """(size, align, {path: (offset, rust type)}) of a struct, by the C rules."""
    fields, off, align = {}, 0, 1
    for typ, member, count in all_structs[name]:
        if typ in PRIMS:
            rust, size = PRIMS[typ]
            a, sub = size, {"": (0, rust)}
        elif typ in all_structs:
            size, a, sub = layout(all_structs, typ)
        else:
            sys.exit(f"unknown type {typ} in {name}")
        off = (off + a - 1) // a * a
        align = max(align, a)
        for i in range(count):
            for path, (o, rust) in sub.items():
                key = member + (f"[{i}]" if count > 1 and typ not in PRIMS else "")
                key = key + ("." + path if path else "")
                if count > 1 and typ in PRIMS and i > 0:
                    continue  # a byte array: its first byte names it
                fields.setdefault(key, (off + i * size + o, rust))
        off += size * count
    off = (off + align - 1) // align * align
    return off, align, fields


def scales():
    text = (SRC / "adma2ros_parser_v335.cpp").read_text()
    return {m.group(1): m.group(2) for m in re.finditer(
        r"getScaledValue\(adma_data\.([\w.]+),\s*([0-9.eE+-]+)\)", text)}


def main():
    base = structs((SRC / "data_structs.hpp").read_text())
    factor = scales()
    out = [
        "// @generated by tools/adma_layout.py from GeneSys's ADMAnet header structs and parser",
        "// (third_party/adma_ros_driver, BSD-3-Clause). Do not edit: run the script again.",
        "",
        "use super::{Channel, Layout, Raw};",
        "",
    ]
    for const, ver, header, struct in VERSIONS:
        all_structs = dict(base)
        all_structs.update(structs((SRC / header).read_text()))
        size, _, fields = layout(all_structs, struct)
        if size != 856:
            sys.exit(f"{struct} lays out to {size} bytes, not 856")
        hdr, _, _ = layout(all_structs, "AdmaStaticHeader")
        dyn, _, _ = layout(all_structs, "AdmaDynamicHeader")
        out.append(f"/// ADMAnet v{ver[0]}.{ver[1]}.{ver[2]} (`{header}`, `struct {struct}`).")
        out.append(f"pub const {const}: Layout = Layout {{")
        out.append(f"    version: {ver},")
        out.append(f"    packet_len: {size},")
        out.append(f"    header_len: {hdr + dyn},")
        for name, p333, p334, scale_path in CHANNELS:
            path = p333 if ver == (3, 3, 3) or p334 is None else p334
            if path not in fields:
                sys.exit(f"{struct} has no member {path}")
            off, rust = fields[path]
            scale = "1.0"
            if scale_path is not None:
                if scale_path not in factor:
                    sys.exit(f"no scale for {scale_path} in the v3.3.5 parser")
                scale = factor[scale_path]
                if "." not in scale and "e" not in scale.lower():
                    scale += ".0"
            kind = rust.capitalize()
            out.append(f"    {name}: Channel {{ offset: {off}, raw: Raw::{kind}, scale: {scale} }},"
                       f" // {path}")
        out.append("};")
        out.append("")
    OUT.write_text("\n".join(out))
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
