// tests/values/csv-roundtrip.mjs: rows.csv read back by DuckDB's
// read_csv equals the rows it was made of (csv-roundtrip.sh drives it).
//
//   node csv-roundtrip.mjs gen OUT
//       OUT/t.parquet    DuckDB writes a row of every kind of awkward
//                        value (commas, quotes, CR, LF, backslashes, the
//                        string \N, empty strings) and NULLs in every
//                        type: integers, floats, decimals, dates,
//                        timestamps, strings, blobs, booleans, lists,
//                        structs
//       OUT/ds/k=0/, OUT/ds/k=1/   the same rows as a Hive dataset
//       OUT/names        the strings, each ended by a NUL byte (for
//                        tests/orc/orc_gen's name column)
//       OUT/orc.parquet  the rows orc_gen writes with those names (id,
//                        name, score, flag), for the ORC file's rows.csv
//   node csv-roundtrip.mjs check WANT GOT.csv OUT.json
//       WANT (a Parquet file, or a Hive dataset folder) against GOT.csv
//       read by read_csv(header = true, allow_quoted_nulls = false):
//       with each field's type given, EXCEPT ALL both ways is empty
//       (nested fields, JSON text in rows.csv, compared as JSON with
//       to_json); sniffed, the integer, float, date, timestamp and
//       boolean fields keep a type of their own and the same values.
//       With COLFS_CSV_NULLSTR=STRING in the environment, GOT.csv was
//       written with -o null=STRING: read_csv is given nullstr = STRING.
//       Writes WANT's rows to OUT.json (DuckDB's text of each value, or
//       null; nested values as to_json) for csv-roundtrip.py.
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, 'package.json'));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));
const { sqlStr } = await import(join(here, 'duckdb-render.mjs'));

const inst = await DuckDBInstance.create(':memory:');
const c = await inst.connect();
await c.run('SET threads = 1');
const rows = async sql => (await c.runAndReadAll(sql)).getRowObjectsJS();
const fail = m => { console.error(`FAIL: ${m}`); process.exit(1); };

// the awkward strings, each once in every column that holds text
const strs = ['plain', 'a,b', 'say "hi"', '"', ',', 'l1\nl2', '\n',
  'cr\rx', 'crlf\r\nx', 'back\\slash', '\\', '\\N', '', ' lead, trail ',
  'tab\tx', 'é€😀', 'NULL', 'x,"y"\n,z\\n', '""'];

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'gen') {
  const out = args[0];
  mkdirSync(out, { recursive: true });
  const list = strs.map(sqlStr).join(', ');
  // row i: string i of the list (NULL at i % 7 == 3), the other fields
  // NULL at their own rows, so that every field has NULLs and values
  await c.run(`CREATE TABLE t AS SELECT i::INTEGER AS i,
    CASE WHEN i % 5 = 1 THEN NULL ELSE (i - 9) * 1000003 END::INTEGER AS int32,
    -- (pandas 1.5 reads a BIGINT near the least one among missing
    -- values as NaN: -2^62 here, the least BIGINT is left to the other
    -- tests)
    CASE i % 6 WHEN 2 THEN NULL WHEN 0 THEN -4611686018427387904
      WHEN 5 THEN 9223372036854775807 ELSE i * -7 END::BIGINT AS int64,
    CASE i % 7 WHEN 4 THEN NULL WHEN 1 THEN 1e21 WHEN 2 THEN -0.0
      WHEN 5 THEN 'inf'::DOUBLE WHEN 6 THEN '-inf'::DOUBLE
      ELSE i / 3 END::DOUBLE AS f64,
    CASE WHEN i % 4 = 2 THEN NULL ELSE i * 0.1 END::REAL AS f32,
    CASE WHEN i % 5 = 3 THEN NULL ELSE (i - 8) * 1.125 END::DECIMAL(9,3) AS dec9,
    CASE WHEN i % 6 = 4 THEN NULL
      ELSE '1234567890123.0123456789'::DECIMAL(38,10) * (i - 9) END::DECIMAL(38,10) AS dec38,
    CASE WHEN i % 4 = 0 THEN NULL ELSE DATE '1970-01-01' + (i * 4000 - 30000)::INTEGER END AS d,
    CASE WHEN i % 5 = 0 THEN NULL
      ELSE TIMESTAMP '2001-02-03 04:05:06.789012' + to_microseconds((i * 123456789123)::BIGINT) END AS ts,
    CASE WHEN i % 7 = 3 THEN NULL ELSE ([${list}])[i + 1] END AS s,
    CASE WHEN i % 6 = 1 THEN NULL ELSE encode(([${list}])[(i + 3) % ${strs.length} + 1]) || '\\xAA\\x00'::BLOB END AS bl,
    CASE i % 4 WHEN 1 THEN '' WHEN 3 THEN NULL ELSE encode(([${list}])[(i + 5) % ${strs.length} + 1]) END::BLOB AS bl2,
    CASE i % 3 WHEN 0 THEN true WHEN 1 THEN NULL ELSE false END AS bo,
    CASE WHEN i % 5 = 2 THEN NULL WHEN i % 5 = 4 THEN []::INTEGER[] ELSE [i, NULL, -i] END AS li,
    CASE WHEN i % 4 = 1 THEN NULL ELSE [([${list}])[i + 1], NULL, ([${list}])[(i + 7) % ${strs.length} + 1]] END AS ls,
    CASE WHEN i % 6 = 5 THEN NULL
      ELSE {'a': CASE WHEN i % 2 = 0 THEN NULL ELSE i END, 's': ([${list}])[(i + 11) % ${strs.length} + 1]} END AS st,
    (i % 2)::BIGINT AS k
    FROM range(${strs.length}) r(i)`);
  await c.run(`COPY (SELECT * EXCLUDE (k) FROM t ORDER BY i) TO ${sqlStr(join(out, 't.parquet'))} (FORMAT parquet, ROW_GROUP_SIZE 8)`);
  await c.run(`COPY (SELECT * FROM t ORDER BY i) TO ${sqlStr(join(out, 'ds'))} (FORMAT parquet, PARTITION_BY (k))`);
  writeFileSync(join(out, 'names'), Buffer.concat(strs.map(s => Buffer.from(s + '\0'))));
  // what orc_gen writes with those names: 40 rows
  await c.run(`COPY (SELECT i::BIGINT AS id,
      CASE WHEN i % 7 = 3 THEN NULL ELSE ([${list}])[i % ${strs.length} + 1] END AS name,
      (i * 0.5)::DOUBLE AS score, i % 3 = 0 AS flag
    FROM range(40) r(i)) TO ${sqlStr(join(out, 'orc.parquet'))} (FORMAT parquet)`);
  process.exit(0);
}
if (cmd !== 'check')
  fail(`usage: csv-roundtrip.mjs gen OUT | check WANT GOT.csv OUT.json`);

const [want, got, json] = args;
const src = want.endsWith('.parquet') ? `read_parquet(${sqlStr(want)})`
  : `read_parquet(${sqlStr(want + '/**/*.parquet')}, hive_partitioning = true)`;
await c.run(`CREATE TABLE p AS SELECT * FROM ${src}`);
const cols = await rows(`SELECT column_name AS name, column_type AS type FROM (DESCRIBE p)`);
const nested = t => /[\[\](]/.test(t) && !t.startsWith('DECIMAL');
const q = n => `"${n.replace(/"/g, '""')}"`;
const key = q(cols[0].name);
// COLFS_CSV_NULLSTR: rows.csv written with -o null=STRING
const nullstr = process.env.COLFS_CSV_NULLSTR ? `, nullstr = ${sqlStr(process.env.COLFS_CSV_NULLSTR)}` : '';
const csv = opts => `read_csv(${sqlStr(got)}, header = true, allow_quoted_nulls = false${nullstr}${opts})`;

// every field's type given (nested ones as VARCHAR: JSON text)
const types = cols.map(f => `${sqlStr(f.name)}: ${sqlStr(nested(f.type) ? 'VARCHAR' : f.type)}`).join(', ');
await c.run(`CREATE TABLE g AS SELECT * FROM ${csv(`, types = {${types}}`)}`);
const gcols = (await rows(`SELECT column_name AS name FROM (DESCRIBE g)`)).map(r => r.name);
if (gcols.join('\n') !== cols.map(f => f.name).join('\n'))
  fail(`${got}: header ${JSON.stringify(gcols)}, want ${JSON.stringify(cols.map(f => f.name))}`);
const pSel = cols.map(f => nested(f.type) ? `to_json(${q(f.name)})::VARCHAR AS ${q(f.name)}` : q(f.name)).join(', ');
const gSel = cols.map(f => nested(f.type) ? `json(${q(f.name)})::VARCHAR AS ${q(f.name)}` : q(f.name)).join(', ');
const n = (await rows(`SELECT count(*)::INTEGER AS n FROM p`))[0].n;
const gn = (await rows(`SELECT count(*)::INTEGER AS n FROM g`))[0].n;
if (n !== gn)
  fail(`${got}: ${gn} rows, ${want} ${n}`);
for (const [a, b] of [['p', 'g'], ['g', 'p']]) {
  const sel = x => x === 'p' ? pSel : gSel;
  const d = await rows(`SELECT * FROM (SELECT ${sel(a)} FROM ${a} EXCEPT ALL SELECT ${sel(b)} FROM ${b}) LIMIT 3`);
  if (d.length)
    fail(`${got}: rows of ${a === 'p' ? want : 'rows.csv'} not in ${b === 'p' ? want : 'rows.csv'}: ${JSON.stringify(d, (k, v) => typeof v === 'bigint' ? String(v) : v)}`);
}

// sniffed: the types DuckDB gives each field without being told
await c.run(`CREATE TABLE s AS SELECT * FROM ${csv('')}`);
const sniffed = Object.fromEntries((await rows(`SELECT column_name AS name, column_type AS type FROM (DESCRIBE s)`)).map(r => [r.name, r.type]));
const kinds = { BIGINT: 'BIGINT', INTEGER: 'BIGINT', DOUBLE: 'DOUBLE', DATE: 'DATE', BOOLEAN: 'BOOLEAN', TIMESTAMP: 'TIMESTAMP' };
let checked = 0;
for (const f of cols) {
  const k = kinds[f.type];
  if (!k)
    continue;
  if (sniffed[f.name] !== k)
    fail(`${got}: read_csv sniffs ${f.name} (${f.type}) as ${sniffed[f.name]}, want ${k}`);
  const d = await rows(`SELECT count(*)::INTEGER AS n FROM (SELECT ${key}, CAST(${q(f.name)} AS ${k}) FROM p EXCEPT ALL SELECT ${key}, ${q(f.name)} FROM s)`);
  if (d[0].n)
    fail(`${got}: ${f.name} sniffed as ${k}: ${d[0].n} values differ`);
  checked++;
}

// the rows for pandas: DuckDB's text of each value, nested ones as JSON
const text = cols.map(f => `CASE WHEN ${q(f.name)} IS NULL THEN NULL ELSE ${nested(f.type) ? `to_json(${q(f.name)})` : q(f.name)}::VARCHAR END AS ${q(f.name)}`).join(', ');
const all = await rows(`SELECT ${text} FROM p ORDER BY ${key}`);
writeFileSync(json, JSON.stringify({ fields: cols, rows: all }));
console.log(`ok: ${got}: ${gn} rows, ${cols.length} fields equal ${want} (types given); ${checked} fields sniffed with their own types`);
