#!/usr/bin/python3
# tests/iceberg/make_table.py: writes a real Apache Iceberg table
# directory, for tests of the Iceberg table kind, with an expected.json
# in the shared corpus's format (../shared/corpus/iceberg/README.md).
#
#   /usr/bin/python3 make_table.py OUTDIR [--format-version 2|3]
#                    [--location PREFIX] [--codec null|deflate]
#                    [--delete-format parquet|avro]
#   /usr/bin/python3 make_table.py OUTDIR --scale [--files N] [--manifests M]
#   /usr/bin/python3 make_table.py OUTDIR --transforms
#   /usr/bin/python3 make_table.py OUTDIR --many-deletes N
#
# Debian's python3 with python3-avro writes the metadata: the metadata
# JSON files (metadata/v1..vN.metadata.json and version-hint.text), the
# manifest lists (snap-<id>-1-<uuid>.avro) and manifests (<uuid>-m<k>.avro)
# as Avro object containers with the spec's schemas and field ids (as
# Spark and Iceberg Java write them: field-id, element-id, key and value
# ids in the k<id>_v<id> records, the table schema and the partition spec
# in each manifest's metadata); entries added by a snapshot leave their
# sequence numbers null, to be inherited from the manifest list, as
# writers do.  DuckDB (node make_table.mjs) writes the Parquet data and
# delete files, with field ids; tests/iceberg/puffin.py the deletion
# vectors.  With --delete-format avro the position and equality delete
# files are Avro instead (python3-avro, the spec's delete schemas with
# their field ids, the same rows; manifests say file_format AVRO), and
# the expected rows take their rows from python3-avro reading them back.  Paths in the metadata are PREFIX/... (PREFIX: --location,
# else OUTDIR made absolute); with another PREFIX a reader must map the
# table's location onto the directory, as for the corpus's tables.
#
# The table (format version 2, or 3 with deletion vectors):
#
#   snapshot 1 (sequence 1, append, schema 0: 1 id long, 2 name string,
#     3 category string, 4 score double; spec 0: identity(category)):
#     category=a/ ids 1-6 (name of 4 NULL), category=b/ ids 7-10;
#   snapshot 2 (2, delete): the rows of ids 2 and 5 deleted by position:
#     a position delete file (v2) or a deletion vector in a Puffin file
#     (v3);
#   snapshot 3 (3, append, schema 1: `name` renamed `full_name`, `score`
#     dropped, 5 rank int added, with initial-default 7 in v3):
#     category=a/ ids 11-14;
#   snapshot 4 (4, delete): an equality delete file on id (3, 8, 12) in
#     partition category=a: 3 and 12 go, 8 (in category=b) stays;
#   snapshot 5 (5, overwrite, spec 1: unpartitioned): ids 15, 16, 3 (16's
#     full_name NULL) in a new file; a global equality delete on
#     full_name ('n7', NULL: the name of 7 and of 4 in older files, not
#     16's: the same sequence number); the row of 9 deleted by position
#     (a delete file naming its data file in referenced_data_file, or a
#     deletion vector);
#   refs: main (snapshot 5), tag `first` (snapshot 1), branch `audit`
#     (snapshot 3).
#
# expected.json: the current snapshot's id, rows, fields and every
# field's values as DuckDB's text, sorted (text order; NULL as \N), as
# the corpus gives them, and "snapshots": the same for every snapshot
# (its own schema), the rows each from DuckDB reading the data files and
# leaving out what the delete files remove (an anti-join; which delete
# files apply to which data file is decided here, by the spec's scan
# planning).
#
# --scale: the benchmark table: N (10,000) small data files (identity
# partition on `part`, 2 rows each) in M (20) manifests of one snapshot,
# written in seconds (DuckDB writes the files in one COPY ... PARTITION_BY).
#
# --many-deletes N: one data file of 4N rows and N position delete files
# (half Parquet, half Avro), each deleting two rows; expected.json gives
# the ids left.
#
# --transforms: a table partitioned by bucket[3](id), truncate[1](name),
# truncate[10](amount), day(ts), hour(ts), month(d) and year(d), one row
# a file, the partition tuples typed as the spec's transforms give them
# (the bucket hash checked on the spec's own examples); expected.json
# adds "partitions": each data file's path and its partition values in
# the spec's human form (2024-01-04, 2024-01-04-16, 2024-04, 2024).
import argparse
import json
import os
import subprocess
import sys
import tempfile
import uuid
import warnings

import avro.datafile
import avro.io
import avro.schema

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import puffin  # noqa: E402

BASE_MS = 1700000000000
# python3-avro knows no logicalType "map" (Iceberg's maps as arrays of
# key/value records) and says so at every schema: it writes them as given
warnings.filterwarnings("ignore", module="avro")


def duckdb(run, query=None):
    """Run DuckDB statements and queries (make_table.mjs)."""
    with tempfile.TemporaryDirectory() as tmp:
        job = os.path.join(tmp, "job.json")
        out = os.path.join(tmp, "out.json")
        with open(job, "w") as f:
            json.dump({"run": run, "query": query or {}}, f)
        subprocess.run(["node", os.path.join(here, "make_table.mjs"), job, out],
                       check=True, timeout=600)
        with open(out) as f:
            return json.load(f)


def sq(s):
    return "'" + s.replace("'", "''") + "'"


# ---- Avro schemas of the spec (manifest lists and manifests) ----------

def opt(t):
    return ["null", t]


def map_field(name, fid, kid, vid, vtype, doc):
    return {"name": name, "type": opt({
        "type": "array", "logicalType": "map",
        "items": {"type": "record", "name": "k%d_v%d" % (kid, vid),
                  "fields": [{"name": "key", "type": "int", "field-id": kid},
                             {"name": "value", "type": vtype, "field-id": vid}]}}),
        "doc": doc, "default": None, "field-id": fid}


def manifest_list_schema(version):
    fields = [
        {"name": "manifest_path", "type": "string", "field-id": 500},
        {"name": "manifest_length", "type": "long", "field-id": 501},
        {"name": "partition_spec_id", "type": "int", "field-id": 502},
        {"name": "content", "type": "int", "field-id": 517},
        {"name": "sequence_number", "type": "long", "field-id": 515},
        {"name": "min_sequence_number", "type": "long", "field-id": 516},
        {"name": "added_snapshot_id", "type": "long", "field-id": 503},
        {"name": "added_files_count", "type": "int", "field-id": 504},
        {"name": "existing_files_count", "type": "int", "field-id": 505},
        {"name": "deleted_files_count", "type": "int", "field-id": 506},
        {"name": "added_rows_count", "type": "long", "field-id": 512},
        {"name": "existing_rows_count", "type": "long", "field-id": 513},
        {"name": "deleted_rows_count", "type": "long", "field-id": 514},
        {"name": "partitions", "type": opt({
            "type": "array", "element-id": 508,
            "items": {"type": "record", "name": "r508", "fields": [
                {"name": "contains_null", "type": "boolean", "field-id": 509},
                {"name": "contains_nan", "type": opt("boolean"), "default": None, "field-id": 518},
                {"name": "lower_bound", "type": opt("bytes"), "default": None, "field-id": 510},
                {"name": "upper_bound", "type": opt("bytes"), "default": None, "field-id": 511}]}}),
         "default": None, "field-id": 507},
        {"name": "key_metadata", "type": opt("bytes"), "default": None, "field-id": 519},
    ]
    if version >= 3:
        fields.append({"name": "first_row_id", "type": opt("long"), "default": None,
                       "field-id": 520})
    return {"type": "record", "name": "manifest_file", "fields": fields}


def manifest_schema(version, part_fields):
    """part_fields: [(name, field id, avro type)] of the spec."""
    df = [
        {"name": "content", "type": "int", "field-id": 134},
        {"name": "file_path", "type": "string", "field-id": 100},
        {"name": "file_format", "type": "string", "field-id": 101},
        {"name": "partition", "type": {"type": "record", "name": "r102", "fields": [
            {"name": n, "type": opt(t), "default": None, "field-id": i}
            for n, i, t in part_fields]}, "field-id": 102},
        {"name": "record_count", "type": "long", "field-id": 103},
        {"name": "file_size_in_bytes", "type": "long", "field-id": 104},
        map_field("column_sizes", 108, 117, 118, "long", "Map of column id to total size on disk"),
        map_field("value_counts", 109, 119, 120, "long", "Map of column id to total count"),
        map_field("null_value_counts", 110, 121, 122, "long", "Map of column id to null value count"),
        map_field("nan_value_counts", 137, 138, 139, "long", "Map of column id to number of NaN values"),
        map_field("lower_bounds", 125, 126, 127, "bytes", "Map of column id to lower bound"),
        map_field("upper_bounds", 128, 129, 130, "bytes", "Map of column id to upper bound"),
        {"name": "key_metadata", "type": opt("bytes"), "default": None, "field-id": 131},
        {"name": "split_offsets", "type": opt({"type": "array", "items": "long", "element-id": 133}),
         "default": None, "field-id": 132},
        {"name": "equality_ids", "type": opt({"type": "array", "items": "int", "element-id": 136}),
         "default": None, "field-id": 135},
        {"name": "sort_order_id", "type": opt("int"), "default": None, "field-id": 140},
    ]
    if version >= 3:
        df.append({"name": "first_row_id", "type": opt("long"), "default": None, "field-id": 142})
    df.append({"name": "referenced_data_file", "type": opt("string"), "default": None,
               "field-id": 143})
    if version >= 3:
        df.append({"name": "content_offset", "type": opt("long"), "default": None, "field-id": 144})
        df.append({"name": "content_size_in_bytes", "type": opt("long"), "default": None,
                   "field-id": 145})
    return {"type": "record", "name": "manifest_entry", "fields": [
        {"name": "status", "type": "int", "field-id": 0},
        {"name": "snapshot_id", "type": opt("long"), "default": None, "field-id": 1},
        {"name": "sequence_number", "type": opt("long"), "default": None, "field-id": 3},
        {"name": "file_sequence_number", "type": opt("long"), "default": None, "field-id": 4},
        {"name": "data_file", "type": {"type": "record", "name": "r2", "fields": df}, "field-id": 2},
    ]}


AVRO_OF = {"int": "int", "long": "long", "string": "string",
           "date": {"type": "int", "logicalType": "date"},
           "timestamptz": {"type": "long", "logicalType": "timestamp-micros",
                           "adjust-to-utc": True}}


def part_type(transform, source):
    """The Avro type of a partition field: the spec's result type of its
    transform over the source field's type."""
    if transform == "identity" or transform.startswith("truncate["):
        return AVRO_OF[source]
    if transform == "day":
        return AVRO_OF["date"]
    return "int"  # bucket[N], year, month, hour


def write_avro(path, schema, records, meta, codec):
    s = avro.schema.parse(json.dumps(schema))
    with open(path, "wb") as f:
        w = avro.datafile.DataFileWriter(f, avro.io.DatumWriter(), s, codec=codec)
        for k, v in meta.items():
            w.set_meta(k, v.encode() if isinstance(v, str) else v)
        for r in records:
            w.append(r)
        w.close()
    return os.path.getsize(path)


# ---- the table ---------------------------------------------------------

class Table:
    def __init__(self, out, location, version, codec):
        self.out, self.loc, self.v, self.codec = out, location.rstrip("/"), version, codec
        self.uuid = str(uuid.UUID(int=0x1ce0de1 + version))
        self.snapshots, self.manifests, self.meta_log = [], [], []
        self.schemas, self.specs = [], []
        os.makedirs(os.path.join(out, "metadata"), exist_ok=True)
        os.makedirs(os.path.join(out, "data"), exist_ok=True)
        self.n_uuid = 0

    def uid(self):
        self.n_uuid += 1
        return str(uuid.UUID(int=(self.v << 64) + self.n_uuid))

    def path(self, rel):
        return self.loc + "/" + rel

    def local(self, rel):
        return os.path.join(self.out, rel)

    def manifest(self, snap_id, seq, spec, content, files):
        """A manifest of the entries `files` added by snapshot snap_id."""
        rel = "metadata/%s-m0.avro" % self.uid()
        types = {f["id"]: f["type"] for f in self.schemas[-1]["fields"]}
        part_fields = [(f["name"], f["field-id"],
                        part_type(f["transform"], types[f["source-id"]]))
                       for f in spec["fields"]]
        recs = []
        for f in files:
            df = {
                "content": f["content"], "file_path": self.path(f["rel"]),
                "file_format": ("PUFFIN" if f["rel"].endswith(".puffin") else
                                "AVRO" if f["rel"].endswith(".avro") else "PARQUET"),
                "partition": f.get("partition", {}), "record_count": f["records"],
                "file_size_in_bytes": f["size"], "column_sizes": None,
                "value_counts": None, "null_value_counts": None,
                "nan_value_counts": None, "lower_bounds": None, "upper_bounds": None,
                "key_metadata": None, "split_offsets": None,
                "equality_ids": f.get("equality_ids"), "sort_order_id": None,
                "referenced_data_file": (self.path(f["referenced"])
                                         if f.get("referenced") else None),
            }
            if self.v >= 3:
                df["first_row_id"] = f.get("first_row_id")
                df["content_offset"] = f.get("content_offset")
                df["content_size_in_bytes"] = f.get("content_size")
            # added entries inherit their sequence numbers
            recs.append({"status": 1, "snapshot_id": snap_id, "sequence_number": None,
                         "file_sequence_number": None, "data_file": df})
        schema = self.schemas[-1]
        length = write_avro(self.local(rel), manifest_schema(self.v, part_fields), recs, {
            "schema": json.dumps(schema), "schema-id": str(schema["schema-id"]),
            "partition-spec": json.dumps(spec["fields"]),
            "partition-spec-id": str(spec["spec-id"]),
            "format-version": str(self.v),
            "content": "data" if content == 0 else "deletes",
        }, self.codec)
        m = {"manifest_path": self.path(rel), "manifest_length": length,
             "partition_spec_id": spec["spec-id"], "content": content,
             "sequence_number": seq, "min_sequence_number": seq,
             "added_snapshot_id": snap_id, "added_files_count": len(files),
             "existing_files_count": 0, "deleted_files_count": 0,
             "added_rows_count": sum(f["records"] for f in files),
             "existing_rows_count": 0, "deleted_rows_count": 0,
             "partitions": [{"contains_null": False, "contains_nan": None,
                             "lower_bound": None, "upper_bound": None}
                            for _ in spec["fields"]],
             "key_metadata": None}
        if self.v >= 3:
            m["first_row_id"] = files[0].get("first_row_id") if content == 0 else None
        self.manifests.append(m)
        return m

    def snapshot(self, snap_id, seq, operation, manifests, schema_id, summary,
                 first_row_id=None, added_rows=None):
        parent = self.snapshots[-1]["snapshot-id"] if self.snapshots else None
        rel = "metadata/snap-%d-1-%s.avro" % (snap_id, self.uid())
        meta = {"snapshot-id": str(snap_id), "sequence-number": str(seq),
                "format-version": str(self.v)}
        if parent is not None:
            meta["parent-snapshot-id"] = str(parent)
        write_avro(self.local(rel), manifest_list_schema(self.v), manifests, meta,
                   self.codec)
        s = {"sequence-number": seq, "snapshot-id": snap_id,
             "timestamp-ms": BASE_MS + 60000 * seq,
             "summary": dict({"operation": operation}, **summary),
             "manifest-list": self.path(rel), "schema-id": schema_id}
        if parent is not None:
            s["parent-snapshot-id"] = parent
        if self.v >= 3:
            s["first-row-id"] = first_row_id if first_row_id is not None else 0
            s["added-rows"] = added_rows or 0
        self.snapshots.append(s)
        return s

    def write_metadata(self, refs, next_row_id=None):
        n = len(self.meta_log) + 1
        rel = "metadata/v%d.metadata.json" % n
        cur = self.snapshots[-1] if self.snapshots else None
        md = {
            "format-version": self.v, "table-uuid": self.uuid, "location": self.loc,
            "last-sequence-number": cur["sequence-number"] if cur else 0,
            "last-updated-ms": cur["timestamp-ms"] if cur else BASE_MS,
            "last-column-id": max(f["id"] for s in self.schemas for f in s["fields"]),
            "current-schema-id": self.schemas[-1]["schema-id"],
            "schemas": self.schemas,
            "default-spec-id": self.specs[-1]["spec-id"],
            "partition-specs": self.specs,
            "last-partition-id": max([f["field-id"] for s in self.specs for f in s["fields"]] or [999]),
            "default-sort-order-id": 0,
            "sort-orders": [{"order-id": 0, "fields": []}],
            "properties": {"write.format.default": "parquet",
                           "created-by": "colfs tests/iceberg/make_table.py"},
            "current-snapshot-id": cur["snapshot-id"] if cur else -1,
            "refs": refs,
            "snapshots": self.snapshots,
            "statistics": [],
            "snapshot-log": [{"timestamp-ms": s["timestamp-ms"], "snapshot-id": s["snapshot-id"]}
                             for s in self.snapshots],
            "metadata-log": list(self.meta_log),
        }
        if self.v >= 3:
            md["next-row-id"] = next_row_id or 0
        with open(self.local(rel), "w") as f:
            json.dump(md, f, indent=2)
        self.meta_log.append({"timestamp-ms": md["last-updated-ms"],
                              "metadata-file": self.path(rel)})
        with open(self.local("metadata/version-hint.text"), "w") as f:
            f.write(str(n))
        return rel


SCHEMA0 = [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "name", "required": False, "type": "string"},
    {"id": 3, "name": "category", "required": False, "type": "string"},
    {"id": 4, "name": "score", "required": False, "type": "double"},
]


# The Avro schemas of delete files (the spec's "Delete Formats": the
# reserved field ids of file_path and pos; an equality delete file's
# fields carry the table's ids)
POS_DELETE_AVRO = {"type": "record", "name": "position_delete", "fields": [
    {"name": "file_path", "type": "string", "field-id": 2147483546},
    {"name": "pos", "type": "long", "field-id": 2147483545}]}


def eq_delete_avro(fields):
    return {"type": "record", "name": "equality_delete", "fields": [
        {"name": name, "type": t, "field-id": fid} for name, fid, t in fields]}


def avro_rows(path):
    with open(path, "rb") as f:
        return list(avro.datafile.DataFileReader(f, avro.io.DatumReader()))


def sql_lit(v):
    if v is None:
        return "NULL"
    if isinstance(v, int):
        return "%d::BIGINT" % v
    return sq(v)


def make(out, version, location, codec, delete_format="parquet"):
    t = Table(out, location, version, codec)
    avro_dels = delete_format == "avro"
    v3 = version >= 3
    t.schemas.append({"type": "struct", "schema-id": 0, "fields": SCHEMA0})
    spec0 = {"spec-id": 0, "fields": [{"name": "category", "transform": "identity",
                                       "source-id": 3, "field-id": 1000}]}
    t.specs.append(spec0)
    ids0 = "FIELD_IDS {id: 1, name: 2, category: 3, score: 4}"
    ids1 = "FIELD_IDS {id: 1, full_name: 2, category: 3, rank: 5}"
    A = "data/category=a/00000-1-%s.parquet" % t.uid()
    B = "data/category=b/00000-1-%s.parquet" % t.uid()
    C = "data/category=a/00000-3-%s.parquet" % t.uid()
    D = "data/00000-5-%s.parquet" % t.uid()
    dx = "avro" if avro_dels else "parquet"
    P = "data/category=a/00000-2-%s-deletes.%s" % (t.uid(), dx)
    E = "data/category=a/00000-4-%s-eq-deletes.%s" % (t.uid(), dx)
    G = "data/00000-5-%s-eq-deletes.%s" % (t.uid(), dx)
    P2 = "data/category=b/00000-5-%s-deletes.%s" % (t.uid(), dx)
    DV2 = "data/00000-2-%s-dv.puffin" % t.uid()
    DV5 = "data/00000-5-%s-dv.puffin" % t.uid()
    for d in ("data/category=a", "data/category=b"):
        os.makedirs(t.local(d), exist_ok=True)
    L = lambda rel: sq(t.local(rel))  # noqa: E731
    run = [
        "COPY (SELECT i::BIGINT AS id, CASE WHEN i = 4 THEN NULL ELSE 'n' || i END AS name,"
        " 'a' AS category, i * 1.5 AS score FROM range(1, 7) t(i) ORDER BY i)"
        " TO %s (FORMAT parquet, %s)" % (L(A), ids0),
        "COPY (SELECT i::BIGINT AS id, 'n' || i AS name, 'b' AS category, i * 1.5 AS score"
        " FROM range(7, 11) t(i) ORDER BY i) TO %s (FORMAT parquet, %s)" % (L(B), ids0),
        "COPY (SELECT i::BIGINT AS id, 'm' || i AS full_name, 'a' AS category,"
        " (i - 10)::INTEGER AS rank FROM range(11, 15) t(i) ORDER BY i)"
        " TO %s (FORMAT parquet, %s)" % (L(C), ids1),
        "COPY (SELECT * FROM (VALUES (15::BIGINT, 'm15', 'c', 5::INTEGER),"
        " (16::BIGINT, NULL, 'c', 6::INTEGER), (3::BIGINT, 'n3', 'a', 7::INTEGER))"
        " v(id, full_name, category, rank)) TO %s (FORMAT parquet, %s)" % (L(D), ids1),
    ]
    if not avro_dels:
        run.append("COPY (SELECT * FROM (VALUES (3::BIGINT), (8::BIGINT), (12::BIGINT)) v(id))"
                   " TO %s (FORMAT parquet, FIELD_IDS {id: 1})" % L(E))
        run.append("COPY (SELECT * FROM (VALUES ('n7'), (NULL)) v(full_name))"
                   " TO %s (FORMAT parquet, FIELD_IDS {full_name: 2})" % L(G))
    else:
        # the same rows as Avro delete files (python3-avro), as Iceberg
        # Java writes them with write.delete.format.default=avro
        write_avro(t.local(E), eq_delete_avro([("id", 1, "long")]),
                   [{"id": 3}, {"id": 8}, {"id": 12}], {}, codec)
        write_avro(t.local(G), eq_delete_avro([("full_name", 2, ["null", "string"])]),
                   [{"full_name": "n7"}, {"full_name": None}], {}, codec)
        if not v3:
            write_avro(t.local(P), POS_DELETE_AVRO,
                       [{"file_path": t.path(A), "pos": 1},
                        {"file_path": t.path(A), "pos": 4}], {}, codec)
            write_avro(t.local(P2), POS_DELETE_AVRO,
                       [{"file_path": t.path(B), "pos": 2}], {}, codec)
    pos_ids = "FIELD_IDS {file_path: 2147483546, pos: 2147483545}"
    if not v3 and not avro_dels:
        run.append("COPY (SELECT * FROM (VALUES (%s, 1::BIGINT), (%s, 4::BIGINT))"
                   " v(file_path, pos)) TO %s (FORMAT parquet, %s)"
                   % (sq(t.path(A)), sq(t.path(A)), L(P), pos_ids))
        run.append("COPY (SELECT * FROM (VALUES (%s, 2::BIGINT)) v(file_path, pos))"
                   " TO %s (FORMAT parquet, %s)" % (sq(t.path(B)), L(P2), pos_ids))
    duckdb(run)
    size = lambda rel: os.path.getsize(t.local(rel))  # noqa: E731

    def dv(rel, data_rel, rows):
        data, blobs = puffin.puffin([(t.path(data_rel), rows)])
        with open(t.local(rel), "wb") as f:
            f.write(data)
        off, length, card = blobs[0]
        return {"content": 1, "rel": rel, "records": card, "size": len(data),
                "referenced": data_rel, "content_offset": off, "content_size": length,
                "partition": {}, "rows": rows}

    S = [None, 3051729675574597001, 3051729675574597002, 3051729675574597003,
         3051729675574597004, 3051729675574597005]
    t.write_metadata({})  # v1: the table created, no snapshot
    # snapshot 1
    fa = {"content": 0, "rel": A, "records": 6, "size": size(A),
          "partition": {"category": "a"}, "first_row_id": 0}
    fb = {"content": 0, "rel": B, "records": 4, "size": size(B),
          "partition": {"category": "b"}, "first_row_id": 6}
    m1 = t.manifest(S[1], 1, spec0, 0, [fa, fb])
    t.snapshot(S[1], 1, "append", [m1], 0,
               {"added-data-files": "2", "added-records": "10"}, 0, 10)
    t.write_metadata({"main": {"snapshot-id": S[1], "type": "branch"}}, 10)
    # snapshot 2: ids 2 and 5 (rows 1 and 4 of A) deleted by position
    if v3:
        fp = dv(DV2, A, [1, 4])
        fp["partition"] = {"category": "a"}
    else:
        fp = {"content": 1, "rel": P, "records": 2, "size": size(P),
              "partition": {"category": "a"}}
    m2 = t.manifest(S[2], 2, spec0, 1, [fp])
    t.snapshot(S[2], 2, "delete", [m1, m2], 0,
               {"added-delete-files": "1", "added-position-deletes": "2"}, 10, 0)
    t.write_metadata({"main": {"snapshot-id": S[2], "type": "branch"}}, 10)
    # snapshot 3: schema 1 (rename, drop, add), ids 11-14
    rank = {"id": 5, "name": "rank", "required": False, "type": "int"}
    if v3:
        rank["initial-default"] = 7
        rank["write-default"] = 7
    t.schemas.append({"type": "struct", "schema-id": 1, "fields": [
        SCHEMA0[0], dict(SCHEMA0[1], name="full_name"), SCHEMA0[2], rank]})
    fc = {"content": 0, "rel": C, "records": 4, "size": size(C),
          "partition": {"category": "a"}, "first_row_id": 10}
    m3 = t.manifest(S[3], 3, spec0, 0, [fc])
    t.snapshot(S[3], 3, "append", [m1, m2, m3], 1,
               {"added-data-files": "1", "added-records": "4"}, 10, 4)
    t.write_metadata({"main": {"snapshot-id": S[3], "type": "branch"}}, 14)
    # snapshot 4: equality deletes on id in category=a
    fe = {"content": 2, "rel": E, "records": 3, "size": size(E),
          "partition": {"category": "a"}, "equality_ids": [1]}
    m4 = t.manifest(S[4], 4, spec0, 1, [fe])
    t.snapshot(S[4], 4, "delete", [m1, m2, m3, m4], 1,
               {"added-delete-files": "1", "added-equality-deletes": "3"}, 14, 0)
    t.write_metadata({"main": {"snapshot-id": S[4], "type": "branch"}}, 14)
    # snapshot 5: unpartitioned spec 1; a new file, a global equality
    # delete on full_name, the row of 9 (row 2 of B) by position
    spec1 = {"spec-id": 1, "fields": []}
    t.specs.append(spec1)
    fd = {"content": 0, "rel": D, "records": 3, "size": size(D), "partition": {},
          "first_row_id": 14}
    fg = {"content": 2, "rel": G, "records": 2, "size": size(G), "partition": {},
          "equality_ids": [2]}
    if v3:
        fq = dv(DV5, B, [2])
    else:
        fq = {"content": 1, "rel": P2, "records": 1, "size": size(P2), "referenced": B}
    fq["partition"] = {"category": "b"}
    m5 = t.manifest(S[5], 5, spec1, 0, [fd])
    m6 = t.manifest(S[5], 5, spec1, 1, [fg])
    m7 = t.manifest(S[5], 5, spec0, 1, [fq])
    t.snapshot(S[5], 5, "overwrite", [m1, m2, m3, m4, m5, m6, m7], 1,
               {"added-data-files": "1", "added-delete-files": "2"}, 14, 3)
    meta = t.write_metadata({"main": {"snapshot-id": S[5], "type": "branch"},
                             "first": {"snapshot-id": S[1], "type": "tag"},
                             "audit": {"snapshot-id": S[3], "type": "branch"}}, 17)

    # the expected rows, snapshot by snapshot: the data and delete files
    # live in each, the spec's scan planning, DuckDB's anti-join
    files = {  # rel: (file, seq, spec id, physical names by field id)
        A: (fa, 1, 0, {1: "id", 2: "name", 3: "category", 4: "score"}),
        B: (fb, 1, 0, {1: "id", 2: "name", 3: "category", 4: "score"}),
        C: (fc, 3, 0, {1: "id", 2: "full_name", 3: "category", 5: "rank"}),
        D: (fd, 5, 1, {1: "id", 2: "full_name", 3: "category", 5: "rank"}),
    }
    dels = [(fp, 2, 0, {1: "file_path", 2: "pos"}), (fe, 4, 0, {1: "id"}),
            (fg, 5, 1, {2: "full_name"}), (fq, 5, 0, {1: "file_path", 2: "pos"})]
    live = {1: ([A, B], []), 2: ([A, B], [0]), 3: ([A, B, C], [0]),
            4: ([A, B, C], [0, 1]), 5: ([A, B, C, D], [0, 1, 2, 3])}
    def del_rows(rel, phys):
        """A delete file's rows for DuckDB: read_parquet, or an Avro
        delete file's records as python3-avro reads them back."""
        if not rel.endswith(".avro"):
            return "read_parquet(%s)" % L(rel)
        cols = [phys[k] for k in sorted(phys)]
        rows = avro_rows(t.local(rel))
        return "(SELECT * FROM (VALUES %s) v(%s))" % (
            ", ".join("(%s)" % ", ".join(sql_lit(r[c]) for c in cols) for r in rows),
            ", ".join(cols))

    queries = {}
    for n in range(1, 6):
        schema = t.schemas[0 if n < 3 else 1]
        data_rels, del_idx = live[n]
        parts = []
        for rel in data_rels:
            f, seq, spec, phys = files[rel]
            cols = []
            for fld in schema["fields"]:
                if fld["id"] in phys:
                    cols.append("CAST(x.%s AS VARCHAR)" % phys[fld["id"]])
                elif "initial-default" in fld:
                    cols.append("CAST(%s AS VARCHAR)" % json.dumps(fld["initial-default"]))
                else:
                    cols.append("NULL::VARCHAR")
            conds = []
            dvs = [dels[k] for k in del_idx
                   if dels[k][0].get("content_offset") is not None
                   and dels[k][0]["referenced"] == rel and dels[k][1] >= seq
                   and dels[k][2] == spec and dels[k][0]["partition"] == f["partition"]]
            for k in del_idx:
                d, dseq, dspec, dphys = dels[k]
                same = dspec == spec and d["partition"] == f["partition"]
                if d["content"] == 1 and d.get("content_offset") is None:
                    if dvs or dseq < seq or not same:
                        continue
                    if d.get("referenced") and d["referenced"] != rel:
                        continue
                    conds.append("x.file_row_number NOT IN (SELECT pos FROM %s"
                                 " WHERE file_path = %s)" % (del_rows(d["rel"], dphys),
                                                           sq(t.path(rel))))
                elif d["content"] == 1:
                    if any(d is z[0] for z in dvs):
                        conds.append("x.file_row_number NOT IN (%s)"
                                     % ", ".join(str(r) for r in d["rows"]))
                elif d["content"] == 2:
                    if dseq <= seq or not (same or not d["partition"]):
                        continue
                    eq = []
                    for fid in d["equality_ids"]:
                        left = ("x.%s" % phys[fid]) if fid in phys else "NULL"
                        eq.append("%s IS NOT DISTINCT FROM y.%s" % (left, dphys[fid]))
                    conds.append("NOT EXISTS (SELECT 1 FROM %s y WHERE %s)"
                                 % (del_rows(d["rel"], dphys), " AND ".join(eq)))
            parts.append("SELECT %s FROM read_parquet(%s, file_row_number = true) x%s"
                         % (", ".join(cols), L(rel),
                            " WHERE " + " AND ".join(conds) if conds else ""))
        queries["s%d" % n] = " UNION ALL ".join(parts)
    res = duckdb([], queries)
    snaps = []
    for n in range(1, 6):
        schema = t.schemas[0 if n < 3 else 1]
        names = [f["name"] for f in schema["fields"]]
        rows = res["s%d" % n]
        values = {nm: sorted("\\N" if r[i] is None else r[i] for r in rows)
                  for i, nm in enumerate(names)}
        snaps.append({"snapshot": S[n], "sequence-number": n,
                      "schema-id": schema["schema-id"], "rows": len(rows),
                      "fields": names, "values": values})
    cur = snaps[-1]
    expected = {
        "snapshot": S[5], "rows": cur["rows"],
        "source": "tests/iceberg/make_table.py (format version %d): DuckDB reading the data"
                  " files, the delete files that apply (the spec's scan planning) left out"
                  % version,
        "metadata": meta, "fields": cur["fields"], "values": cur["values"],
        "snapshots": snaps,
    }
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)


def make_many_deletes(out, location, n_dels, codec):
    """A table of one data file of 4 * n_dels rows (id 0, 1, ...) and
    n_dels position delete files, the even ones Parquet (DuckDB), the
    odd ones Avro (python3-avro), file k deleting the rows of ids 4k and
    4k + 1.  expected.json: the ids left, in order."""
    t = Table(out, location, 2, codec)
    t.schemas.append({"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"}]})
    spec = {"spec-id": 0, "fields": []}
    t.specs.append(spec)
    D = "data/00000-1-%s.parquet" % t.uid()
    dels = ["data/00000-2-%s-deletes-%d.%s" % (t.uid(), k, "avro" if k % 2 else "parquet")
            for k in range(n_dels)]
    run = ["SET threads = 2",
           "COPY (SELECT i::BIGINT AS id FROM range(%d) t(i)) TO %s"
           " (FORMAT parquet, FIELD_IDS {id: 1})" % (4 * n_dels, sq(t.local(D)))]
    for k, rel in enumerate(dels):
        rows = [(t.path(D), 4 * k), (t.path(D), 4 * k + 1)]
        if k % 2:
            write_avro(t.local(rel), POS_DELETE_AVRO,
                       [{"file_path": p, "pos": r} for p, r in rows], {}, codec)
        else:
            run.append("COPY (SELECT * FROM (VALUES %s) v(file_path, pos)) TO %s"
                       " (FORMAT parquet, FIELD_IDS {file_path: 2147483546, pos: 2147483545})"
                       % (", ".join("(%s, %d::BIGINT)" % (sq(p), r) for p, r in rows),
                          sq(t.local(rel))))
    duckdb(run)
    fd = {"content": 0, "rel": D, "records": 4 * n_dels, "size": os.path.getsize(t.local(D)),
          "partition": {}}
    fdels = [{"content": 1, "rel": rel, "records": 2, "size": os.path.getsize(t.local(rel)),
              "partition": {}} for rel in dels]
    snap = 4000000000000000002
    ms = [t.manifest(snap, 1, spec, 0, [fd]), t.manifest(snap, 1, spec, 1, fdels)]
    t.snapshot(snap, 1, "overwrite", ms, 0,
               {"added-data-files": "1", "added-delete-files": str(n_dels)})
    t.write_metadata({"main": {"snapshot-id": snap, "type": "branch"}})
    left = [i for i in range(4 * n_dels) if i % 4 >= 2]
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump({"snapshot": snap, "rows": len(left), "ids": left}, f)


def make_scale(out, location, n_files, n_manifests, codec):
    """The benchmark table: n_files data files of 2 rows in n_manifests
    manifests of one snapshot."""
    t = Table(out, location, 2, codec)
    t.schemas.append({"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "part", "required": True, "type": "int"}]})
    spec = {"spec-id": 0, "fields": [{"name": "part", "transform": "identity",
                                      "source-id": 2, "field-id": 1000}]}
    t.specs.append(spec)
    # one COPY writes every file: data/part=K/data_0.parquet (the
    # partition column stays in the directory name, not in the file)
    duckdb(["SET threads = 2",
            "COPY (SELECT i::BIGINT AS id, (i // 2)::INTEGER AS part FROM range(%d) t(i))"
            " TO %s (FORMAT parquet, PARTITION_BY (part), FIELD_IDS {id: 1})"
            % (2 * n_files, sq(t.local("data")))])
    files = []
    for k in range(n_files):
        d = t.local("data/part=%d" % k)
        names = sorted(os.listdir(d))
        if len(names) != 1:
            sys.exit("make_table.py: data/part=%d holds %d files" % (k, len(names)))
        rel = "data/part=%d/%s" % (k, names[0])
        files.append({"content": 0, "rel": rel, "records": 2, "size": os.path.getsize(t.local(rel)),
                      "partition": {"part": k}})
    snap = 4000000000000000001
    ms = []
    per = (n_files + n_manifests - 1) // n_manifests
    part_spec = {"spec-id": 0, "fields": spec["fields"]}
    for m in range(n_manifests):
        chunk = files[m * per:(m + 1) * per]
        if chunk:
            ms.append(t.manifest(snap, 1, part_spec, 0, chunk))
    t.snapshot(snap, 1, "append", ms, 0,
               {"added-data-files": str(n_files), "added-records": str(2 * n_files)})
    meta = t.write_metadata({"main": {"snapshot-id": snap, "type": "branch"}})
    res = duckdb([], {"rows": "SELECT CAST(id AS VARCHAR), CAST(part AS VARCHAR) FROM"
                              " read_parquet(%s, hive_partitioning = true)"
                              % sq(t.local("data/*/*.parquet"))})["rows"]
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump({"snapshot": snap, "rows": len(res),
                   "source": "tests/iceberg/make_table.py --scale: %d files of 2 rows"
                             " in %d manifests" % (n_files, len(ms)),
                   "metadata": meta, "fields": ["id", "part"],
                   "values": {"id": sorted(r[0] for r in res),
                              "part": sorted(r[1] for r in res)}}, f, indent=1)


def murmur3_32(data):
    """MurmurHash3 x86 32-bit, seed 0 (the spec's bucket hash), signed."""
    c1, c2, h, n = 0xcc9e2d51, 0x1b873593, 0, len(data)
    rotl = lambda x, r: ((x << r) | (x >> (32 - r))) & 0xFFFFFFFF  # noqa: E731
    for i in range(0, n - n % 4, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = rotl((k * c1) & 0xFFFFFFFF, 15) * c2 & 0xFFFFFFFF
        h = (rotl(h ^ k, 13) * 5 + 0xe6546b64) & 0xFFFFFFFF
    tail = data[n - n % 4:]
    if tail:
        k = int.from_bytes(tail, "little")
        k = rotl((k * c1) & 0xFFFFFFFF, 15) * c2 & 0xFFFFFFFF
        h ^= k
    h ^= n
    h ^= h >> 16
    h = h * 0x85ebca6b & 0xFFFFFFFF
    h ^= h >> 13
    h = h * 0xc2b2ae35 & 0xFFFFFFFF
    h ^= h >> 16
    return h - (1 << 32) if h & 0x80000000 else h


def bucket_long(v, n):
    return (murmur3_32(v.to_bytes(8, "little", signed=True)) & 0x7FFFFFFF) % n


# the spec's own examples ("Appendix B: 32-bit Hash Requirements")
assert murmur3_32((34).to_bytes(8, "little")) == 2017239379
assert murmur3_32("iceberg".encode()) == 1210000089


def make_transforms(out, location, codec):
    """A table partitioned by bucket[3](id), truncate[1](name),
    truncate[10](amount), day(ts), hour(ts), month(d), year(d): one data
    file per partition tuple; expected.json gives each file's partition
    values in the spec's human form."""
    import datetime
    t = Table(out, location, 2, codec)
    t.schemas.append({"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "name", "required": False, "type": "string"},
        {"id": 3, "name": "amount", "required": False, "type": "int"},
        {"id": 4, "name": "ts", "required": False, "type": "timestamptz"},
        {"id": 5, "name": "d", "required": False, "type": "date"}]})
    spec = {"spec-id": 0, "fields": [
        {"name": "id_bucket", "transform": "bucket[3]", "source-id": 1, "field-id": 1000},
        {"name": "name_trunc", "transform": "truncate[1]", "source-id": 2, "field-id": 1001},
        {"name": "amount_trunc", "transform": "truncate[10]", "source-id": 3, "field-id": 1002},
        {"name": "ts_day", "transform": "day", "source-id": 4, "field-id": 1003},
        {"name": "ts_hour", "transform": "hour", "source-id": 4, "field-id": 1004},
        {"name": "d_month", "transform": "month", "source-id": 5, "field-id": 1005},
        {"name": "d_year", "transform": "year", "source-id": 5, "field-id": 1006}]}
    t.specs.append(spec)
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    names = ["apple", "avocado", "banana", "blueberry", "cherry", None]
    rows = []
    for i in range(1, 9):
        ts = epoch + datetime.timedelta(days=19723 + i // 3, hours=i * 5, minutes=i)
        d = datetime.date(2023, 11, 20) + datetime.timedelta(days=17 * i)
        rows.append((i, names[i % len(names)], -7 + 6 * i, ts, d))
    files, parts = [], {}
    run = []
    for k, (i, name, amount, ts, d) in enumerate(rows):
        micros = (ts - epoch) // datetime.timedelta(microseconds=1)
        pv = {"id_bucket": bucket_long(i, 3),
              "name_trunc": name[:1] if name is not None else None,
              "amount_trunc": amount - amount % 10,
              "ts_day": micros // 86400000000,
              "ts_hour": micros // 3600000000,
              "d_month": (d.year - 1970) * 12 + d.month - 1,
              "d_year": d.year - 1970}
        ts_d = epoch + datetime.timedelta(days=pv["ts_day"])
        ts_h = epoch + datetime.timedelta(hours=pv["ts_hour"])
        human = {"id_bucket": str(pv["id_bucket"]),
                 "name_trunc": pv["name_trunc"],
                 "amount_trunc": str(pv["amount_trunc"]),
                 "ts_day": ts_d.strftime("%Y-%m-%d"),
                 "ts_hour": ts_h.strftime("%Y-%m-%d-%H"),
                 "d_month": "%04d-%02d" % (d.year, d.month),
                 "d_year": "%04d" % d.year}
        rel = "data/" + "/".join("%s=%s" % (f, "null" if human[f] is None else human[f])
                                 for f in pv) + "/00000-%d-%s.parquet" % (k, t.uid())
        os.makedirs(os.path.dirname(t.local(rel)), exist_ok=True)
        run.append("COPY (SELECT %d::BIGINT AS id, %s::VARCHAR AS name, %d::INTEGER AS amount,"
                   " TIMESTAMPTZ '%s' AS ts, DATE '%s' AS d) TO %s (FORMAT parquet,"
                   " FIELD_IDS {id: 1, name: 2, amount: 3, ts: 4, d: 5})"
                   % (i, "NULL" if name is None else sq(name), amount,
                      ts.strftime("%Y-%m-%d %H:%M:%S+00"), d.isoformat(), sq(t.local(rel))))
        # python3-avro takes a date for the int "date" it writes
        avro_pv = dict(pv, ts_day=datetime.date(1970, 1, 1)
                       + datetime.timedelta(days=pv["ts_day"]))
        files.append({"content": 0, "rel": rel, "records": 1, "partition": avro_pv})
        parts[rel] = human
    duckdb(["SET TimeZone = 'UTC'"] + run)
    for f in files:
        f["size"] = os.path.getsize(t.local(f["rel"]))
    snap = 5000000000000000001
    m = t.manifest(snap, 1, spec, 0, files)
    t.snapshot(snap, 1, "append", [m], 0,
               {"added-data-files": str(len(files)), "added-records": str(len(files))})
    meta = t.write_metadata({"main": {"snapshot-id": snap, "type": "branch"}})
    fields = [f["name"] for f in t.schemas[0]["fields"]]
    res = duckdb(["SET TimeZone = 'UTC'"], {"rows": "SELECT %s FROM read_parquet(%s)" % (
        ", ".join("CAST(%s AS VARCHAR)" % f for f in fields), sq(t.local("data/**/*.parquet")))})
    rows = res["rows"]
    with open(os.path.join(out, "expected.json"), "w") as fh:
        json.dump({"snapshot": snap, "rows": len(rows),
                   "source": "tests/iceberg/make_table.py --transforms: one row a file,"
                             " partition values computed here (the spec's transforms,"
                             " murmur3 checked on its examples)",
                   "metadata": meta, "fields": fields,
                   "values": {f: sorted("\\N" if r[i] is None else r[i] for r in rows)
                              for i, f in enumerate(fields)},
                   "partitions": {t.path(rel): h for rel, h in parts.items()}}, fh, indent=1)


def main():
    ap = argparse.ArgumentParser(description="write an Iceberg table for the tests")
    ap.add_argument("out")
    ap.add_argument("--format-version", type=int, default=2, choices=(2, 3))
    ap.add_argument("--location", help="the table location the metadata names"
                    " (default: OUTDIR, absolute)")
    ap.add_argument("--codec", default="deflate", choices=("null", "deflate"),
                    help="the Avro codec of manifests and manifest lists")
    ap.add_argument("--delete-format", default="parquet", choices=("parquet", "avro"),
                    help="the format of the position and equality delete files")
    ap.add_argument("--scale", action="store_true", help="the benchmark table")
    ap.add_argument("--transforms", action="store_true",
                    help="a table partitioned by bucket, truncate, day, hour, month, year")
    ap.add_argument("--many-deletes", type=int, metavar="N",
                    help="one data file and N position delete files")
    ap.add_argument("--files", type=int, default=10000)
    ap.add_argument("--manifests", type=int, default=20)
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    if os.path.exists(out) and os.listdir(out):
        sys.exit("make_table.py: %s is not empty" % out)
    os.makedirs(out, exist_ok=True)
    location = a.location or out
    if a.many_deletes:
        make_many_deletes(out, location, a.many_deletes, a.codec)
    elif a.scale:
        make_scale(out, location, a.files, a.manifests, a.codec)
    elif a.transforms:
        make_transforms(out, location, a.codec)
    else:
        make(out, a.format_version, location, a.codec, a.delete_format)


if __name__ == "__main__":
    main()
