// tests/arrays/arrays-oracle.mjs OUTDIR: a Parquet file DuckDB writes
// with a column of every fixed-width type (with NULLs), in several row
// groups of small pages, and DuckDB's reading of it as CSV with every
// value as a plain number (OUTDIR/fixed.parquet, OUTDIR/fixed.csv):
// integers as they are, floats as DOUBLE text, DATE as days since the
// epoch, TIMESTAMP in its unit since the epoch, DECIMAL unscaled, BOOLEAN
// 0/1, NULL as an empty field.
import { DuckDBInstance } from '@duckdb/node-api';

const [out] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:');
const c = await inst.connect();
const q = (s) => c.runAndReadAll(s).then((r) => r.getRows());

const N = 100000;
// a NULL every 7th row in each nullable column (shifted per column), and
// values that reach the ends of each type's range
await q(`CREATE TABLE t AS SELECT
  i::BIGINT AS id_required,
  CASE WHEN i % 7 = 0 THEN NULL ELSE ((i * 37) % 256 - 128)::TINYINT END AS i8,
  CASE WHEN i % 7 = 1 THEN NULL ELSE ((i * 101) % 65536 - 32768)::SMALLINT END AS i16,
  CASE WHEN i % 7 = 2 THEN NULL ELSE ((hash(i) % 4294967296)::BIGINT - 2147483648)::INTEGER END AS i32,
  CASE WHEN i % 7 = 3 THEN NULL ELSE (hash(i)::HUGEINT - 9223372036854775808)::BIGINT END AS i64,
  CASE WHEN i % 7 = 4 THEN NULL ELSE (i % 256)::UTINYINT END AS u8,
  CASE WHEN i % 7 = 5 THEN NULL ELSE (i * 13 % 65536)::USMALLINT END AS u16,
  CASE WHEN i % 7 = 6 THEN NULL ELSE (hash(i) % 4294967296)::UINTEGER END AS u32,
  CASE WHEN i % 5 = 0 THEN NULL ELSE hash(i * 3)::UBIGINT END AS u64,
  CASE WHEN i % 5 = 1 THEN NULL ELSE (i / 7.0 - 3000)::FLOAT END AS f32,
  CASE WHEN i % 5 = 2 THEN NULL ELSE (i * 1.0e-3 + 1.0 / 3)::DOUBLE END AS f64,
  CASE WHEN i % 5 = 3 THEN NULL ELSE i % 3 = 0 END AS b,
  CASE WHEN i % 5 = 4 THEN NULL ELSE DATE '1900-01-01' + (i * 3)::INTEGER END AS d,
  CASE WHEN i % 6 = 0 THEN NULL ELSE TIMESTAMP '1969-12-31 23:00:00' + to_microseconds(i * 1234567) END AS ts_us,
  CASE WHEN i % 6 = 1 THEN NULL ELSE (TIMESTAMP '2001-02-03 04:05:06' + to_milliseconds(i * 98765))::TIMESTAMP_MS END AS ts_ms,
  CASE WHEN i % 6 = 2 THEN NULL ELSE (TIMESTAMP '1999-12-31 00:00:00' + to_microseconds(i * 77))::TIMESTAMP_NS END AS ts_ns,
  CASE WHEN i % 6 = 3 THEN NULL ELSE ((i - 50000) / 100.0)::DECIMAL(4,1) END AS dec4,
  CASE WHEN i % 6 = 4 THEN NULL ELSE ((i * 7919 - 500000000) / 100.0)::DECIMAL(9,2) END AS dec9,
  CASE WHEN i % 6 = 5 THEN NULL ELSE format('{}.{:04d}', (hash(i) % 100000000000000)::BIGINT - 50000000000000, i % 10000)::DECIMAL(18,4) END AS dec18,
  (i * 11 % 1000)::INTEGER AS i32_required
FROM range(${N}) r(i)`);
await q(`COPY (SELECT * EXCLUDE (dec4), (dec4 / 10)::DECIMAL(4,1) AS dec4 FROM t ORDER BY id_required) TO '${out}/fixed.parquet' (FORMAT parquet, ROW_GROUP_SIZE 70000)`);
// DuckDB's own reading of the file it wrote
await q(`COPY (SELECT
  id_required, i8, i16, i32, i64, u8, u16, u32, u64,
  f32::DOUBLE AS f32, f64, b::INTEGER AS b,
  (d - DATE '1970-01-01') AS d,
  epoch_us(ts_us) AS ts_us, epoch_ms(ts_ms) AS ts_ms, epoch_ns(ts_ns) AS ts_ns,
  replace(dec4::VARCHAR, '.', '')::BIGINT AS dec4,
  replace(dec9::VARCHAR, '.', '')::BIGINT AS dec9,
  replace(dec18::VARCHAR, '.', '')::BIGINT AS dec18, i32_required
  FROM read_parquet('${out}/fixed.parquet')) TO '${out}/fixed.csv' (HEADER, NULLSTR '')`);
