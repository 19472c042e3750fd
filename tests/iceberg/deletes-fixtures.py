# tests/iceberg/deletes-fixtures.py: the Puffin files of the Iceberg
# deletes test (test_ice_deletes.c), written by puffin.py from the rows
# DuckDB picked (OUTDIR/dv.json, deletes-fixtures.mjs).
#
#   /usr/bin/python3 deletes-fixtures.py OUTDIR
#
# Writes OUTDIR/dv_*.puffin and OUTDIR/puffin.json: for each file, each
# blob's data file path and [offset, length] as a manifest gives them;
# and Avro delete files (python3-avro, the spec's Avro delete schemas,
# make_table.py's): pos_avro.avro (pos_2.parquet's rows), eq_avro.avro
# (eq_id_name.parquet's), pos_avro_trunc.avro (pos_avro.avro cut short)
# and eq_avro_nested.avro (its field of id 1 a record).
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import puffin  # noqa: E402

out = sys.argv[1]
dv = json.load(open(os.path.join(out, "dv.json")))
P, R = dv["paths"], dv["rows"]
where = {}


def write(name, dvs, **kw):
    data, blobs = puffin.puffin(dvs, **kw)
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
    where[name] = {p: [o, l] for (p, _), (o, l, _) in zip(dvs, blobs)}
    return data


write("dv_big.puffin", [(P["big"], R["big"])])
write("dv_big_lz4.puffin", [(P["big"], R["big"])], footer_codec="lz4")
write("dv_big_lz4_nosize.puffin", [(P["big"], R["big"])],
      footer_codec="lz4-nosize")
write("dv_big_zstd.puffin", [(P["big"], R["big"])], footer_codec="zstd")
ab = write("dv_ab.puffin", [(P["a"], R["a"]), (P["b"], R["b"])])
write("dv_crc.puffin", [(P["a"], R["a"])], crc_delta=1)
with open(os.path.join(out, "dv_trunc.puffin"), "wb") as f:
    f.write(ab[:-10])
where["dv_trunc.puffin"] = where["dv_ab.puffin"]
with open(os.path.join(out, "puffin.json"), "w") as f:
    json.dump(where, f)

import make_table  # noqa: E402
make_table.write_avro(os.path.join(out, "pos_avro.avro"), make_table.POS_DELETE_AVRO,
                      [{"file_path": P["a"], "pos": 0}, {"file_path": P["a"], "pos": 3}],
                      {}, "deflate")
make_table.write_avro(os.path.join(out, "eq_avro.avro"), make_table.eq_delete_avro(
    [("id", 1, "int"), ("name", 2, ["null", "string"])]),
    [{"id": i, "name": n} for i, n in ((0, "n0"), (3, None), (4, "zz"), (7, None),
                                       (1, "n1"), (2, None))], {}, "null")
with open(os.path.join(out, "pos_avro.avro"), "rb") as f:
    whole = f.read()
with open(os.path.join(out, "pos_avro_trunc.avro"), "wb") as f:
    f.write(whole[:-20])
make_table.write_avro(os.path.join(out, "eq_avro_nested.avro"), make_table.eq_delete_avro(
    [("id", 1, {"type": "record", "name": "r", "fields": [{"name": "x", "type": "int"}]})]),
    [{"id": {"x": 1}}], {}, "null")
