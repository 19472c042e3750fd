// Check a colfs-mksample file with DuckDB, an independent Parquet reader:
// every value of every row against the formulas documented at the top of
// tools/colfs-mksample.c, the row-group split, the chunk statistics, the
// codec, the key/value metadata and created_by.
//
//   node sample-check.js MODULES_DIR FILE ROWS GROUPS CODEC [nobloom]
//
// Unless "nobloom", the id and name chunks must carry bloom filters that
// DuckDB's parquet_bloom_probe finds every present value in (sampled for
// id) and that exclude two absent values.
//
// Exit 0 when everything matches, 1 with a message at the first mismatch.
'use strict';
const path = require('path');
const [modules, file, rowsArg, groupsArg, codec, bloomArg] = process.argv.slice(2);
const bloom = bloomArg !== 'nobloom';
const { DuckDBInstance } = require(path.join(modules, '@duckdb', 'node-api'));

const NAMES = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot',
  'golf', 'hotel', 'india', 'juliett', 'kilo', 'lima', 'mike'];

function expectedRow(r) {
  const day = new Date((19000 + r % 365) * 86400000).toISOString().slice(0, 10);
  let tags = null;
  const k = r % 5;
  if (k === 1) tags = [];
  else if (k >= 2) {
    tags = [];
    for (let j = 0; j < k - 1; j++)
      tags.push(j === 1 && r % 3 === 0 ? null : 't' + ((r + j) % 4));
  }
  return {
    id: String(r),
    name: r % 7 === 3 ? null : NAMES[r % 13],
    price: r % 11 === 5 ? null : (r % 1000) * 0.25 + 0.5,
    day,
    tags,
  };
}

function fail(msg) {
  console.error(`sample-check: ${file}: ${msg}`);
  process.exit(1);
}

(async () => {
  const rows = Number(rowsArg);
  let groups = Math.min(Number(groupsArg), rows);
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  const q = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson();
  const lit = "'" + file.replace(/'/g, "''") + "'";

  const got = await q(`SELECT id, name, price, CAST(day AS VARCHAR) AS day, tags
                       FROM read_parquet(${lit}) ORDER BY id`);
  if (got.length !== rows) fail(`${got.length} rows, expected ${rows}`);
  for (let r = 0; r < rows; r++) {
    const e = JSON.stringify(expectedRow(r));
    const g = JSON.stringify(got[r]);
    if (e !== g) fail(`row ${r}: got ${g}, expected ${e}`);
  }
  // rows come back in file order too
  const order = await q(`SELECT count(*) AS bad FROM (SELECT id, row_number()
      OVER () - 1 AS rn FROM read_parquet(${lit})) WHERE CAST(id AS BIGINT) <> rn`);
  if (order[0].bad !== '0') fail('rows are not stored in id order');

  const meta = await q(`SELECT row_group_id, row_group_num_rows, path_in_schema,
      compression, stats_min_value, stats_max_value, stats_null_count, num_values
      FROM parquet_metadata(${lit}) ORDER BY row_group_id, column_id`);
  if (meta.length !== groups * 5)
    fail(`${meta.length} column chunks, expected ${groups * 5}`);
  const want = { none: 'UNCOMPRESSED', snappy: 'SNAPPY', gzip: 'GZIP',
                 zstd: 'ZSTD', lz4_raw: 'LZ4_RAW' }[codec];
  let start = 0;
  for (let g = 0; g < groups; g++) {
    const n = Math.floor(rows / groups) + (g < rows % groups ? 1 : 0);
    const ex = [];
    for (let r = start; r < start + n; r++) ex.push(expectedRow(r));
    for (let c = 0; c < 5; c++) {
      const m = meta[g * 5 + c];
      const where = `row group ${g} column ${m.path_in_schema}`;
      if (Number(m.row_group_num_rows) !== n)
        fail(`${where}: ${m.row_group_num_rows} rows, expected ${n}`);
      if (m.compression !== want)
        fail(`${where}: codec ${m.compression}, expected ${want}`);
      // statistics against the values
      let vals, nulls, entries;
      switch (c) {
      case 0: vals = ex.map(x => Number(x.id)); nulls = 0; entries = n; break;
      case 1: vals = ex.map(x => x.name).filter(v => v !== null);
              nulls = n - vals.length; entries = n; break;
      case 2: vals = ex.map(x => x.price).filter(v => v !== null);
              nulls = n - vals.length; entries = n; break;
      case 3: vals = ex.map(x => x.day); nulls = 0; entries = n; break;
      case 4: {
        vals = []; nulls = 0; entries = 0;
        for (const x of ex) {
          if (x.tags === null || x.tags.length === 0) { nulls++; entries++; continue; }
          for (const t of x.tags) { entries++; if (t === null) nulls++; else vals.push(t); }
        }
      }
      }
      if (Number(m.stats_null_count) !== nulls)
        fail(`${where}: null_count ${m.stats_null_count}, expected ${nulls}`);
      if (Number(m.num_values) !== entries)
        fail(`${where}: num_values ${m.num_values}, expected ${entries}`);
      if (vals.length) {
        const sorted = [...vals].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        const mn = String(sorted[0]), mx = String(sorted[sorted.length - 1]);
        if (c !== 2 && (m.stats_min_value !== mn || m.stats_max_value !== mx))
          fail(`${where}: min/max ${m.stats_min_value}/${m.stats_max_value}, expected ${mn}/${mx}`);
        if (c === 2 && (Number(m.stats_min_value) !== Number(mn) ||
                        Number(m.stats_max_value) !== Number(mx)))
          fail(`${where}: min/max ${m.stats_min_value}/${m.stats_max_value}, expected ${mn}/${mx}`);
      }
    }
    start += n;
  }

  const blooms = await q(`SELECT row_group_id, path_in_schema FROM parquet_metadata(${lit})
      WHERE bloom_filter_offset IS NOT NULL ORDER BY row_group_id, column_id`);
  if (blooms.length !== (bloom ? groups * 2 : 0))
    fail(`${blooms.length} bloom filters: ${JSON.stringify(blooms)}`);
  if (bloom && groups > 0) {
    const probe = async (col, v) => (await q(`SELECT row_group_id, bloom_filter_excludes AS x
        FROM parquet_bloom_probe(${lit}, '${col}', ${v}) ORDER BY row_group_id`)).map(r => r.x);
    let start = 0;
    const present = new Set();
    for (let g = 0; g < groups; g++) {
      const n = Math.floor(rows / groups) + (g < rows % groups ? 1 : 0);
      for (let r = start; r < start + n; r += Math.max(1, Math.floor(n / 25))) {
        const x = await probe('id', r);
        if (x[g]) fail(`bloom filter of row group ${g} excludes id ${r}`);
      }
      const names = new Set();
      for (let r = start; r < start + n; r++) {
        const e = expectedRow(r);
        if (e.name !== null) names.add(e.name);
      }
      for (const nm of names) {
        const x = await probe('name', `'${nm}'`);
        if (x[g]) fail(`bloom filter of row group ${g} excludes name ${nm}`);
      }
      start += n;
    }
    for (const [col, v] of [['name', "'zulu'"], ['id', -1]]) {
      const x = await probe(col, v);
      if (x.some(e => !e)) fail(`bloom filter of ${col} does not exclude ${v}: ${x}`);
    }
  }

  const kv = await q(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${lit})`);
  if (kv.length !== 1 || kv[0].k !== 'colfs.sample' || kv[0].v !== '1')
    fail(`key_value_metadata ${JSON.stringify(kv)}`);
  const fm = await q(`SELECT created_by, num_rows, num_row_groups FROM parquet_file_metadata(${lit})`);
  if (!/^colfs-mksample \S+$/.test(fm[0].created_by)) fail(`created_by ${fm[0].created_by}`);
  if (Number(fm[0].num_rows) !== rows || Number(fm[0].num_row_groups) !== groups)
    fail(`file metadata ${JSON.stringify(fm[0])}`);
  console.log(`ok ${file}: ${rows} rows, ${groups} row groups, ${want}`);
})().catch((e) => fail(e.message));
