// tests/delta/rows-oracle.mjs: the rows of a Delta snapshot as DuckDB
// reads them from the active files formats/dataset/delta.c lists.
//
//   node rows-oracle.mjs DELTA_DUMP TABLE[@VERSION]...
//
// delta-dump --json gives the active files, their partition values and
// the rows their deletion vectors delete.  For each file DuckDB checks:
// the file's size on disk equals the add action's; its row count equals
// the log's numRecords where the stats give one; every physical column
// name of the schema (column mapping) is a column of the file; each
// deleted row index is a row of the file.  Then it prints the snapshot's
// rows, deleted rows left out, partition values added under their
// logical names, columns under their logical names, one JSON object a
// line, sorted: what the dataset tree's rows.jsonl must hold as a set.
// A table whose data files are not in the corpus prints "no data files".
// With COLFS_TOOL set, the dataset tree's union views of the snapshot
// (colfs-tool cat TABLE columns/<field>, rows.jsonl, rows.csv's row
// count) must hold these rows in the same order (files in path order,
// each file's rows in order, the deleted ones left out), value by value
// (each value compared as text: DuckDB's BIGINT and colfs's number, the
// log's partition string and colfs's typed value).
// With ROWS_ORACLE_MISSING=skip or null (tests/delta/damage.sh), active
// files missing from the table's folder are damaged files: the union
// views are read with -o on_damage=skip (their rows left out) or null
// (each stands as numRecords less its deleted rows of NULL, partition
// values kept; none when the log gives no numRecords).
// Exit 1 with a message on the first check that fails.
import { execFileSync } from 'node:child_process';
import { statSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'values', 'package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const [dump, ...tables] = process.argv.slice(2);
const missing = process.env.ROWS_ORACLE_MISSING || '';
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
for (const spec of tables) {
  const at = spec.lastIndexOf('@');
  const table = at > 0 ? spec.slice(0, at) : spec;
  const args = at > 0 ? ['-o', `version=${spec.slice(at + 1)}`, '--json', table]
                      : ['--json', table];
  await oneTable(table, JSON.parse(execFileSync(dump, args, { encoding: 'utf8' })),
    at > 0 ? ['-o', `version=${spec.slice(at + 1)}`] : []);
}

async function oneTable(table, snap, vopt) {
function fail(msg) {
  console.error(`rows-oracle: ${path.basename(table)}: ${msg}`);
  process.exit(1);
}

const present = snap.files.filter(f => existsSync(path.join(table, f.path)));
if (snap.files.length && !present.length && !missing) {
  console.log(`${path.basename(table)} v${snap.version}: ${snap.files.length} files, no data files in the corpus`);
  return;
}
if (present.length !== snap.files.length && !missing)
  fail(`${snap.files.length - present.length} active files are missing`);
if (missing) vopt = [...vopt, '-o', `on_damage=${missing}`];
const sq = s => "'" + s.replace(/'/g, "''") + "'";
const plain = v => typeof v === 'bigint' ? v.toString()
  : (v !== null && typeof v === 'object') ? String(v) : v;

const out = [];
const ordered = [];   // the snapshot's rows in the union views' order
let deleted = 0;
for (const f of snap.files) {
  const file = path.join(table, f.path);
  if (missing && !existsSync(file)) {
    const n = missing === 'null' && f.num_records >= 0
      ? f.num_records - f.deleted_rows.length : 0;
    for (let i = 0; i < n; i++) {
      const o = {};
      for (const fld of snap.fields) {
        const k = snap.partition_columns.indexOf(fld.name);
        o[fld.name] = k >= 0 ? f.partition_values[k] : null;
      }
      ordered.push(o);
    }
    continue;
  }
  if (statSync(file).size !== f.size)
    fail(`${f.path}: ${statSync(file).size} bytes on disk, the log says ${f.size}`);
  const r = await con.runAndReadAll(
    `SELECT * FROM read_parquet(${sq(file)}, file_row_number = true, hive_partitioning = false) ORDER BY file_row_number`);
  const cols = r.columnNames();
  const rows = r.getRows();
  if (f.num_records >= 0 && rows.length !== f.num_records)
    fail(`${f.path}: DuckDB reads ${rows.length} rows, numRecords says ${f.num_records}`);
  for (const d of f.deleted_rows)
    if (d >= rows.length) fail(`${f.path}: deleted row ${d} of ${rows.length}`);
  const gone = new Set(f.deleted_rows);
  deleted += gone.size;
  const part = new Set(snap.partition_columns);
  for (const fld of snap.fields)
    if (!part.has(fld.name) && !cols.includes(fld.physical))
      fail(`${f.path}: no column ${fld.physical} (field ${fld.name})`);
  rows.forEach((row, i) => {
    if (gone.has(i)) return;
    const o = {};
    for (const fld of snap.fields) {
      const k = snap.partition_columns.indexOf(fld.name);
      if (k >= 0) o[fld.name] = f.partition_values[k];
      else o[fld.name] = plain(row[cols.indexOf(fld.physical)]);
    }
    out.push(JSON.stringify(o));
    ordered.push(o);
  });
}
if (process.env.COLFS_TOOL) unionViews();
function unionViews() {
  // one colfs-tool run for every view: the columns, rows.jsonl and
  // rows.csv one after another, each cut by its line count
  const n = ordered.length;
  const paths = snap.fields.map(f => `columns/${f.name.replace(/%/g, '%25').replace(/\//g, '%2F')}`);
  const all = execFileSync(process.env.COLFS_TOOL,
    [...vopt, 'cat', table, ...paths, 'rows.jsonl', 'rows.csv'],
    { encoding: 'utf8', maxBuffer: 1 << 28 });
  const lines = all === '' ? [] : all.replace(/\n$/, '').split('\n');
  if (lines.length !== n * (paths.length + 2) + 1)
    fail(`the union views hold ${lines.length} lines, the snapshot's ${n} rows give ${n * (paths.length + 2) + 1}`);
  const text = v => v === null || v === undefined ? null : String(v);
  snap.fields.forEach((fld, c) => {
    lines.slice(c * n, (c + 1) * n).forEach((g, i) => {
      const want = text(ordered[i][fld.name]);
      if ((want === null ? '\\N' : want) !== g)
        fail(`columns/${fld.name} line ${i + 1}: ${JSON.stringify(g)}, DuckDB ${JSON.stringify(want)}`);
    });
  });
  lines.slice(paths.length * n, (paths.length + 1) * n).forEach((l, i) => {
    const o = JSON.parse(l);
    const keys = Object.keys(o).sort().join(','), want = Object.keys(ordered[i]).sort().join(',');
    if (keys !== want) fail(`rows.jsonl line ${i + 1}: members ${keys}, the schema's ${want}`);
    for (const k of Object.keys(o))
      if (text(o[k]) !== text(ordered[i][k]))
        fail(`rows.jsonl line ${i + 1} ${k}: ${JSON.stringify(o[k])}, DuckDB ${JSON.stringify(ordered[i][k])}`);
  });
  const head = lines[(paths.length + 1) * n];
  // the schema's fields, then the partition columns (as the keys of a
  // Hive dataset come last)
  const part = new Set(snap.partition_columns);
  if (head !== [...snap.fields.map(f => f.name).filter(f => !part.has(f)),
                ...snap.partition_columns].join(','))
    fail(`rows.csv header ${JSON.stringify(head)}`);
}

out.sort();
console.log(`${path.basename(table)} v${snap.version}: ${snap.files.length} files, ${out.length} rows, ${deleted} deleted`);
for (const l of out) console.log(l);
}
