#!/usr/bin/python3
# tests/iceberg/table_files.py: the data and delete files of an Iceberg
# table's snapshot, read with another Avro reader than colfs's (Debian's
# python3-avro), as the ice_file arrays of formats/dataset/iceberg/
# ice_deletes.h want them, for test_ice_deletes --table.
#
#   /usr/bin/python3 table_files.py TABLE SNAPSHOT_ID OUT.json
#
# TABLE: a directory as make_table.py writes it (metadata/version-hint.text
# naming vN.metadata.json).  Live entries (status 0 or 1) of every
# manifest of the snapshot's manifest list; sequence numbers null in an
# entry are the manifest's (the spec's inheritance); paths under the
# table's location are mapped onto TABLE (a date partition value as its
# ISO text).  OUT.json: {"data": [...],
# "deletes": [...], "fields": [{"id", "name"}] of the snapshot's schema}.
import json
import os
import sys
import warnings

import avro.datafile
import avro.io

warnings.filterwarnings("ignore", module="avro")

table, snap_id, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
hint = open(os.path.join(table, "metadata", "version-hint.text")).read().strip()
md = json.load(open(os.path.join(table, "metadata", "v%s.metadata.json" % hint)))
loc = md["location"].rstrip("/")


def local(p):
    return os.path.join(table, p[len(loc) + 1:]) if p.startswith(loc + "/") else p


snap = next(s for s in md["snapshots"] if s["snapshot-id"] == snap_id)
schema = next(s for s in md["schemas"] if s["schema-id"] == snap["schema-id"])
data, dels = [], []
with open(local(snap["manifest-list"]), "rb") as f:
    manifests = list(avro.datafile.DataFileReader(f, avro.io.DatumReader()))
for m in manifests:
    with open(local(m["manifest_path"]), "rb") as f:
        for e in avro.datafile.DataFileReader(f, avro.io.DatumReader()):
            if e["status"] == 2:
                continue
            d = e["data_file"]
            seq = e["sequence_number"]
            if seq is None:
                seq = m["sequence_number"]
            rec = {"path": d["file_path"], "local": local(d["file_path"]),
                   "content": d["content"], "seq": seq,
                   "file_format": d["file_format"],
                   "spec_id": m["partition_spec_id"], "partition": d["partition"],
                   "record_count": d["record_count"], "size": d["file_size_in_bytes"],
                   "equality_ids": d.get("equality_ids") or [],
                   "referenced_data_file": d.get("referenced_data_file"),
                   "content_offset": d.get("content_offset"),
                   "content_size": d.get("content_size_in_bytes"),
                   "manifest": m["manifest_path"]}
            (data if d["content"] == 0 else dels).append(rec)
with open(out, "w") as f:
    json.dump({"data": data, "deletes": dels,
               "fields": [{"id": x["id"], "name": x["name"]} for x in schema["fields"]]},
              f, default=str)
