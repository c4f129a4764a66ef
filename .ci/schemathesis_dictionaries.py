"""Writes the Schemathesis configuration of the API contract step: .ci/schemathesis.toml with
dictionaries of real content appended (the bundled DBC, scenario TOML, OpenDRIVE map and replay
CSV, ids that exist and sweep variations), for the fields whose grammar no JSON Schema can say.
    python3 .ci/schemathesis_dictionaries.py OUT.toml
"""
import json
import os
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent.parent
data = root / "data"
out = pathlib.Path(sys.argv[1])


def values(*items):
    # JSON strings are valid TOML basic strings (same escapes for quotes, backslashes, control
    # characters and \uXXXX).
    return "values = [" + ", ".join(json.dumps(i) for i in items) + "]"


dicts = {
    "dbc": values((data / "can/vut.dbc").read_text()),
    "scenario_toml": values(
        (data / "scenarios/cpna75_30kmh.toml").read_text(),
        (data / "scenarios/cpna75_10kmh.toml").read_text(),
    ),
    "xosc": values(
        (data / "osc-ncap/OpenSCENARIO/NCAP/AEB_VRU_2023/NCAP_AEB_VRU_CPNA_2023.xosc").read_text()
    ),
    "xodr": values((data / "opendrive/proving_ground.xodr").read_text()),
    "replay_csv": values((data / "replays/cpna75_30kmh.csv").read_text()),
    "scenario_id": values("cpna75_30kmh", "cpna75_10kmh", "cpna75_50kmh"),
    "replay_id": values("cpna75_30kmh", "cpna75_10kmh"),
    "map_id": values("proving_ground"),
    "track": values("main"),
    # The runnable points of the series .ci/schemathesis.sh created (a point run once is done:
    # later runs of it are a 409).
    "point": values(*(int(p) for p in os.environ["SCIL_CONTRACT_POINTS"].split())),
    # Ids no resource has yet, for creates (a taken id is a 409).
    "new_id": values(*(f"contract-{i:04d}" for i in range(3000))),
    "vary": values("method=predicted,at_sample", "noise.pos=0,0.05", "dropout=0,0.05"),
}
text = (root / ".ci/schemathesis.toml").read_text()
text += "\n# Appended by .ci/schemathesis_dictionaries.py\n"
for name, v in dicts.items():
    text += f"\n[dictionaries.{name}]\n{v}\n"
out.write_text(text)
