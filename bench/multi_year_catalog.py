#!/usr/bin/env python3
"""The catalog bench/multi-year.sh scores the price bet on: the shipped catalogs with

  - the contract offers cut to one accelerator's prices (the log's own, h100-sxm), so every
    class commits on the accelerator whose price path is dated over years, and
  - that accelerator's on-demand `[[price_change]]` row given the dated prices its `source`
    states (`observed`): AWS p5.48xlarge $98.32/h (12.29 a GPU-hour) from launch on 2023-07-27,
    cut 44 % on 2025-06-01 to $55.04/h (6.88), still so on 2026-02-11.

    python3 bench/multi_year_catalog.py catalogs OUT_DIR   # writes OUT_DIR/catalogs/*.toml

Run gpuplan with GPUPLAN_CONFIG_DIR=OUT_DIR to read it (user catalogs replace the shipped file
of the same name).
"""
import json
import pathlib
import sys
import tomllib

ACCELERATOR = "h100-sxm"
OBSERVED = [("2023-07-27", 12.29), ("2025-05-31", 12.29), ("2025-06-01", 6.88), ("2026-02-11", 6.88)]
ROW = f'accelerator = "{ACCELERATOR}"\nterm = "on-demand"\n'


def value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    raise TypeError(f"no TOML for {v!r}")


def table(lines, header, entries):
    lines.append(header)
    lines.extend(f"{k} = {value(v)}" for k, v in entries.items())


def contracts_for(source):
    catalog = tomllib.loads(source)
    lines = [f"schema_version = {catalog['schema_version']}"]
    for offer in catalog["offer"]:
        prices = [p for p in offer.get("price", []) if p["accelerator"] == ACCELERATOR]
        if not prices:
            continue
        lines.append("")
        table(lines, "[[offer]]", {k: v for k, v in offer.items() if k != "price"})
        for price in prices:
            table(lines, "[[offer.price]]", price)
    return "\n".join(lines) + "\n"


def accelerators_with_path(source):
    if source.count(ROW) != 1:
        sys.exit(f"expected one {ACCELERATOR} on-demand price_change row")
    dated = ", ".join(f'{{ date = "{d}", usd_per_gpu_hour = {p} }}' for d, p in OBSERVED)
    return source.replace(ROW, ROW + f"observed = [{dated}]\n")


def main():
    shipped, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]) / "catalogs"
    out.mkdir(parents=True, exist_ok=True)
    (out / "contracts.toml").write_text(contracts_for((shipped / "contracts.toml").read_text()))
    (out / "accelerators.toml").write_text(accelerators_with_path((shipped / "accelerators.toml").read_text()))


if __name__ == "__main__":
    main()
