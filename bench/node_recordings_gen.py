#!/usr/bin/env python3
"""Writes one node's utilization three ways, sample for sample, for bench/node-recordings.sh:
`nvidia-smi dmon -s pucm --gpm-metrics 1,2,3,5 -o DT` (the columns of tests/fixtures/h200-a's
dmon-gpm.txt), `nvidia-smi --query-gpu=... --format=csv` (its nvidia-smi-query.csv), and the
same engine-active samples as a DCGM long export (time,host,gpu,metric,value).

Usage: node_recordings_gen.py LAYOUT GPUS SECONDS INTERVAL_MS OUT
LAYOUT is dmon, query or dcgm; the node is node17 from 2026-11-26 00:00:00, each GPU's
utilization holding a level drawn once (seeded) for 30 s at a time."""
import datetime
import random
import sys

layout, gpus, seconds, interval_ms, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rng = random.Random(43)
levels = [rng.choice([0, 0, 3, 12, 28, 50, 71, 88, 97, 99, 100]) for _ in range(10007)]
start = datetime.datetime(2026, 11, 26)
steps = seconds * 1000 // interval_ms

if layout == "dmon":
    header = ("#Date        Time         gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk"
              "      gract     smutil      smocc     mmaact \n"
              "#YYYYMMDD    HH:MM:SS     Idx      W      C      C      %      %      %      %      %      %    MHz    MHz"
              "      GPM:%      GPM:%      GPM:%      GPM:% \n")
    tails = [[f"{g:>8} {100 + 6 * u:>6} {35 + u // 5:>6} {36 + u // 6:>6} {u:>6} {u // 4:>6} {0:>6} {0:>6} {0:>6} {0:>6}"
              f" {3201:>6} {1980:>6} {u:>10} {u * 4 // 5:>10} {u // 7:>10} {u * 3 // 4:>10} \n" for u in range(101)]
             for g in range(gpus)]
elif layout == "query":
    header = ("timestamp, name, pci.bus_id, index, uuid, utilization.gpu [%], utilization.memory [%], memory.used [MiB], "
              "memory.total [MiB], power.draw [W], clocks.current.sm [MHz]\n")
    tails = [[f", NVIDIA H200, 00000000:{g:02X}:00.0, {g}, GPU-a5a3aedd-af9d-bd6c-7a1e-4dacb93b{g:04x}, {u} %, {u // 4} %,"
              f" {1013 if u else 0} MiB, 143771 MiB, {100 + 6 * u}.{g % 100:02d} W, 1980 MHz\n" for u in range(101)]
             for g in range(gpus)]
else:
    header = "time,host,gpu,metric,value\n"
    tails = [[f",node17,{g},DCGM_FI_PROF_GR_ENGINE_ACTIVE,{u / 100}\n" for u in range(101)] for g in range(gpus)]

with open(out, "w") as f:
    f.write(header)
    lines = []
    for step in range(steps):
        t = start + datetime.timedelta(milliseconds=step * interval_ms)
        if layout == "dmon":
            stamp = t.strftime(" %Y%m%d    %H:%M:%S")
            if step and step % 20 == 0:
                lines.append(header)
        elif layout == "query":
            stamp = t.strftime("%Y/%m/%d %H:%M:%S.") + f"{t.microsecond // 1000:03d}"
        else:
            stamp = t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"
        block = step * interval_ms // 30000
        for g in range(gpus):
            lines.append(stamp + tails[g][levels[(block + g * 97) % 10007]])
        if len(lines) > 200000:
            f.write("".join(lines))
            lines.clear()
    f.write("".join(lines))
