#!/usr/bin/env python3
"""Prints the render-bundle rows of `draws` runs (`vigil bench --save` JSON) as a Markdown
table: the paired ratios of the four calls and of the bundle paths, and each path's
median time per draw.

    python3 docs/results/bundle-table.py RUN.json...
"""
import json
import sys


def ratio(p, key):
    v = p.get(key)
    if v is None:
        return "—"
    return f"{v['median']:.3f} [{v['lo']:.3f}, {v['hi']:.3f}]"


def per_draw(w, path):
    for p in w["paths"]:
        if p["path"] == path:
            return p["metrics"]["encode"]["median_us"] * 1000 / w["units"]
    return float("nan")


def main():
    print("| run | vigil/ash (four calls) | vigil-bundle/ash | vigil-bundle/wgpu-bundle "
          "| per draw: vigil, vigil-bundle, ash, wgpu-bundle (ns) | submit, vigil-bundle/ash |")
    print("|---|---|---|---|---|---|")
    for f in sys.argv[1:]:
        run = json.load(open(f))
        w = next(w for w in run["workloads"] if w["name"] == "draws")
        p = w["paired"]
        ns = ", ".join(f"{per_draw(w, x):.1f}" for x in ["vigil", "vigil-bundle", "ash", "wgpu-bundle"])
        print(f"| {f.split('/')[-1].removesuffix('.json')} | {ratio(p, 'encode: vigil/ash')} "
              f"| {ratio(p, 'encode: vigil-bundle/ash')} | {ratio(p, 'encode: vigil-bundle/wgpu-bundle')} "
              f"| {ns} | {ratio(p, 'submit: vigil-bundle/ash')} |")


if __name__ == "__main__":
    main()
