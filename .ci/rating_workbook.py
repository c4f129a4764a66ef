"""A preprocessed rating-tool workbook for the API contract test's setup: Euro NCAP's rating
tool (euroncap-rating-2026) generates its template, every drop-down choice is filled with a
predicted or claimed value, and the tool's preprocess draws the verification points.
    python3 .ci/rating_workbook.py DIR      # prints DIR/ca_preprocessed_template.xlsx
"""
import os
import subprocess
import sys

import openpyxl
from openpyxl.utils.cell import range_boundaries

d = sys.argv[1]


def tool(*a):
    r = subprocess.run([sys.executable, "-m", "euroncap_rating_2026", "crash_avoidance", *a],
                       cwd=d, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{a[0]} failed: {r.stdout}\n{r.stderr}")


tool("generate-template")
path = os.path.join(d, "ca_template.xlsx")
wb = openpyxl.load_workbook(path)
for ws in wb.worksheets:
    for dv in ws.data_validations.dataValidation:
        if dv.type != "list" or not dv.formula1:
            continue
        opts = [o.strip() for o in dv.formula1.strip('"').split(",")]
        if ws.title.endswith("pred.") and "Green" in opts and "N/A" not in opts:
            continue  # the legend above a grid
        if ws.title == "Input parameters":
            choice = "VTA" if "VTA" in opts else ("Retention" if "Retention" in opts else
                     next(o for o in opts if o and o != "N/A"))
        elif "robust" in ws.title:
            choice = "YES"
        elif sorted(opts) == ["AEB", "FCW"]:
            choice = "FCW"
        else:
            choice = next(o for o in opts if o and o not in ("N/A", "NO", "No"))
        for rng in str(dv.sqref).split():
            c1, r1, c2, r2 = range_boundaries(rng)
            for r in range(r1, r2 + 1):
                for c in range(c1, c2 + 1):
                    if ws.cell(row=r, column=c).value in (None, ""):
                        ws.cell(row=r, column=c).value = choice
wb.save(path)
tool("preprocess", "-i", "ca_template.xlsx", "-o", d)
print(os.path.join(d, "ca_preprocessed_template.xlsx"))
