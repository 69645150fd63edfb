#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Loads a throng run's SQLite geometry the way PedPy does and checks it
# (docs/FORMAT.md, "SQLite"; ctest sqlite_walkable): runs built-in scenes
# with obstacles (field, solo) and walls (bottleneck, hallway, solo) with
# --out RUN.sqlite, then, as PedPy's load_walkable_area_from_jupedsim_sqlite
# and WalkableArea do, parses every geometry row from WKT, unions them and
# requires one Polygon that is valid, simple, of non-zero area, with every
# hole covered by it. Beyond PedPy: the geometry's hash is the CRC-32 of its
# text and every frame names it, and every position of the run lies in the
# walkable area (the contact stage keeps bodies out of walls and obstacles).
#
#   /usr/bin/python3 tests/sqlite_walkable.py THRONG
#
# Needs shapely (Debian: python3-shapely, in scripts/setup), 1.8 or 2.
import os, sqlite3, subprocess, sys, tempfile, zlib

import shapely.wkt
from shapely.geometry import Point, Polygon
from shapely.ops import unary_union
from shapely.prepared import prep

SCENES = [  # name, agents, steps, every
    ('field', '400', '240', '60'),
    ('bottleneck', '200', '240', '60'),
    ('hallway', '200', '240', '60'),
    ('solo', '1', '30', '30'),
]


def check(throng, scene, agents, steps, every, d):
    run = os.path.join(d, scene + '.sqlite')
    subprocess.run([throng, 'run', scene, '--agents', agents, '--steps', steps, '--every', every, '--metrics',
                    'off', '-q', '--out', run], check=True, stdout=subprocess.DEVNULL)
    con = sqlite3.connect(run)
    rows = con.execute('SELECT hash, wkt FROM geometry').fetchall()
    if len(rows) != 1:
        return '%d geometry rows' % len(rows)
    h, wkt = rows[0]
    if h != zlib.crc32(wkt.encode()):
        return 'hash %d is not the CRC-32 of the text, %d' % (h, zlib.crc32(wkt.encode()))
    frames = con.execute('SELECT COUNT(*), SUM(geometry_hash = ?) FROM frame_data', (h,)).fetchone()
    if frames[0] == 0 or frames[0] != frames[1]:
        return '%d of %d frames name the geometry' % (frames[1], frames[0])
    # PedPy: union of the rows' geometries, then a single simple Polygon of
    # non-zero area whose holes it covers.
    area = unary_union([shapely.wkt.loads(w) for (w,) in con.execute('SELECT wkt FROM geometry')])
    if not isinstance(area, Polygon):
        return 'the union is a %s, not one Polygon (PedPy refuses it)' % area.geom_type
    if not area.is_valid or not area.is_simple or area.area == 0:
        return 'valid %s, simple %s, area %g' % (area.is_valid, area.is_simple, area.area)
    for hole in area.interiors:
        if not area.covers(hole):
            return 'a hole is not covered by the area'
    inside = prep(area)
    out = [(f, i, x, y) for f, i, x, y in con.execute('SELECT frame, id, pos_x, pos_y FROM trajectory_data')
           if not inside.covers(Point(x, y))]
    n = con.execute('SELECT COUNT(*) FROM trajectory_data').fetchone()[0]
    pieces = con.execute("SELECT value FROM metadata WHERE key = 'walkable_pieces'").fetchone()[0]
    con.close()
    print('%-10s %5d holes, %6d vertices, %9.3f m2 (bounds %9.3f), %s piece(s), %d positions, %d outside' %
          (scene, len(area.interiors), len(area.exterior.coords) + sum(len(r.coords) for r in area.interiors),
           area.area, Polygon(area.exterior).envelope.area, pieces, n, len(out)))
    if out:
        return '%d of %d positions outside the walkable area, the first %s' % (len(out), n, out[0])
    return None


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: sqlite_walkable.py THRONG')
    failed = 0
    with tempfile.TemporaryDirectory() as d:
        for scene in SCENES:
            why = check(sys.argv[1], *scene, d)
            if why is not None:
                print('FAIL %s: %s' % (scene[0], why))
                failed += 1
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
