// tests/arrow/write.mjs: write Arrow IPC files with the npm apache-arrow
// package, and beside each the rows.jsonl colfs must show for it.
//
//   node write.mjs OUTDIR
//
// Writes OUTDIR/all.arrow (file format), all.arrows (stream format),
// all-lz4.arrow (LZ4_FRAME bodies, through lz4js registered as the codec)
// and expected.jsonl.  Three record batches of 7 rows with nulls; a column
// of each type apache-arrow writes (null, bool, ints, half/float/double,
// decimal128, both dates, times, timestamps with and without a zone,
// durations, all three interval units, utf8/binary and their large forms,
// fixed-size binary, list, fixed-size list, struct, map, dense and sparse
// union, dictionary).  Every value is built from its storage bits (makeData),
// and its expected text is written here from those bits by the rules of
// docs/values.md, independently of colfs.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import * as A from 'apache-arrow';

const require = createRequire(import.meta.url);
const lz4 = require('lz4js');

const out = process.argv[2];
const ROWS = 7, BATCHES = 3;

const bitmap = (valid) => {
  const b = new Uint8Array(Math.ceil(valid.length / 8) || 1);
  valid.forEach((v, i) => { if (v) b[i >> 3] |= 1 << (i & 7); });
  return b;
};
const nulls = (valid) => valid.filter((v) => !v).length;
const q = (s) => JSON.stringify(s);

// expected texts
const pad = (n, w) => String(n).padStart(w, '0');
function civil(days) {
  const d = new Date(Number(days) * 86400000);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
}
function hms(v, per, digits) {
  const neg = v < 0n;
  if (neg) v = -v;
  const s = v / per, f = v % per;
  let t = `${pad(s / 3600n, 2)}:${pad((s / 60n) % 60n, 2)}:${pad(s % 60n, 2)}`;
  if (f) t += '.' + pad(f, digits).replace(/0+$/, '');
  return (neg ? '-' : '') + t;
}
function ts(v, per, digits, utc) {
  const day = 86400n * per;
  let d = v / day, r = v % day;
  if (r < 0n) { r += day; d -= 1n; }
  return civil(d) + ' ' + hms(r, per, digits) + (utc ? '+00' : '');
}
const PER = { s: [1n, 0], ms: [1000n, 3], us: [1000000n, 6], ns: [1000000000n, 9] };
function blob(bytes) {
  let s = '';
  for (const c of bytes)
    s += c >= 0x20 && c <= 0x7e && !'\\\'"'.includes(String.fromCharCode(c))
      ? String.fromCharCode(c) : '\\x' + c.toString(16).toUpperCase().padStart(2, '0');
  return s;
}
function ivl(months, days, micros) {
  const part = (v, u) => (v === 0 ? [] : [`${v} ${u}${v === 1 || v === -1 ? '' : 's'}`]);
  const y = Math.trunc(months / 12);
  const p = [...part(y, 'year'), ...part(months - 12 * y, 'month'), ...part(days, 'day')];
  if (micros !== 0n || !p.length) p.push(hms(micros, 1000000n, 6));
  return p.join(' ');
}

// One column: a field and, per batch, its Data and expected JSON texts.
const columns = [];
function col(name, type, make) {
  columns.push({ name, type, make });
}
const valid = (b) => Array.from({ length: ROWS }, (_, i) => (i + b) % 4 !== 1);

function fixed(type, Arr, per, val, text) {
  return (b) => {
    const v = valid(b);
    const data = new Arr(ROWS * per);
    const exp = [];
    for (let i = 0; i < ROWS; i++) {
      const x = val(b * ROWS + i);
      if (per === 1) data[i] = x; else data.set(x, i * per);
      exp.push(v[i] ? text(x) : 'null');
    }
    return [A.makeData({ type, length: ROWS, nullCount: nulls(v), nullBitmap: bitmap(v), data }), exp];
  };
}

col('nul', new A.Null(), () => [A.makeData({ type: new A.Null(), length: ROWS }), Array(ROWS).fill('null')]);
col('b', new A.Bool(), (b) => {
  const v = valid(b), bits = Array.from({ length: ROWS }, (_, i) => (b * ROWS + i) % 3 === 0);
  return [A.makeData({ type: new A.Bool(), length: ROWS, nullCount: nulls(v), nullBitmap: bitmap(v), data: bitmap(bits) }),
    bits.map((x, i) => (v[i] ? String(x) : 'null'))];
});
col('i8', new A.Int8(), fixed(new A.Int8(), Int8Array, 1, (r) => ((r * 37) % 256) - 128, String));
col('u16', new A.Uint16(), fixed(new A.Uint16(), Uint16Array, 1, (r) => 65535 - r * 1000, String));
col('i32', new A.Int32(), fixed(new A.Int32(), Int32Array, 1, (r) => (r % 2 ? -2147483648 : 2147483647) + (r % 2 ? r : -r), String));
col('i64', new A.Int64(), fixed(new A.Int64(), BigInt64Array, 1, (r) => -(2n ** 63n) + BigInt(r) * 99991n, String));
col('u64', new A.Uint64(), fixed(new A.Uint64(), BigUint64Array, 1, (r) => 2n ** 64n - 1n - BigInt(r), String));
const halves = [[0x3e00, '1.5'], [0xc000, '-2.0'], [0x3400, '0.25'], [0x7bff, '65504.0'], [0x0001, '5.9604645e-08'], [0x7c00, '"inf"'], [0x8000, '-0.0']];
col('f16', new A.Float16(), fixed(new A.Float16(), Uint16Array, 1, (r) => halves[r % halves.length], (x) => x[1]));
columns.at(-1).make = ((m) => (b) => {
  const v = valid(b), data = new Uint16Array(ROWS), exp = [];
  for (let i = 0; i < ROWS; i++) { const h = halves[(b * ROWS + i) % halves.length]; data[i] = h[0]; exp.push(v[i] ? h[1] : 'null'); }
  return [A.makeData({ type: new A.Float16(), length: ROWS, nullCount: nulls(v), nullBitmap: bitmap(v), data }), exp];
})();
const floats = [[0.1, '0.1'], [-0.0, '-0.0'], [NaN, '"nan"'], [3.4028234663852886e38, '3.4028235e+38'], [100, '100.0'], [1e-45, '1e-45'], [-Infinity, '"-inf"']];
col('f32', new A.Float32(), fixed(new A.Float32(), Float32Array, 1, (r) => floats[r % floats.length], null));
columns.at(-1).make = (b) => {
  const v = valid(b), data = new Float32Array(ROWS), exp = [];
  for (let i = 0; i < ROWS; i++) { const f = floats[(b * ROWS + i) % floats.length]; data[i] = f[0]; exp.push(v[i] ? f[1] : 'null'); }
  return [A.makeData({ type: new A.Float32(), length: ROWS, nullCount: nulls(v), nullBitmap: bitmap(v), data }), exp];
};
const doubles = [[1e16, '1e+16'], [123.456, '123.456'], [1 / 3, '0.3333333333333333'], [Infinity, '"inf"'], [5e-324, '5e-324'], [-1.5, '-1.5'], [0.0001, '0.0001']];
col('f64', new A.Float64(), (b) => {
  const v = valid(b), data = new Float64Array(ROWS), exp = [];
  for (let i = 0; i < ROWS; i++) { const f = doubles[(b * ROWS + i) % doubles.length]; data[i] = f[0]; exp.push(v[i] ? f[1] : 'null'); }
  return [A.makeData({ type: new A.Float64(), length: ROWS, nullCount: nulls(v), nullBitmap: bitmap(v), data }), exp];
});
// decimal128(20, 3): unscaled values as four little-endian 32-bit words
col('dec', new A.Decimal(3, 20, 128), (b) => {
  const v = valid(b), data = new Uint32Array(ROWS * 4), exp = [];
  for (let i = 0; i < ROWS; i++) {
    const r = b * ROWS + i;
    const u = (r % 2 ? -1n : 1n) * (10n ** BigInt(r % 19) + BigInt(r));
    let w = BigInt.asUintN(128, u);
    for (let k = 0; k < 4; k++) { data[i * 4 + k] = Number(w & 0xffffffffn); w >>= 32n; }
    const a = (u < 0n ? -u : u).toString().padStart(4, '0');
    exp.push(v[i] ? `${u < 0n ? '-' : ''}${a.slice(0, -3)}.${a.slice(-3)}` : 'null');
  }
  return [A.makeData({ type: new A.Decimal(3, 20, 128), length: ROWS, nullCount: nulls(v), nullBitmap: bitmap(v), data }), exp];
});
col('d32', new A.DateDay(), fixed(new A.DateDay(), Int32Array, 1, (r) => r * 4111 - 40000, (x) => q(civil(x))));
col('d64', new A.DateMillisecond(), fixed(new A.DateMillisecond(), BigInt64Array, 1, (r) => BigInt(r * 3001 - 20000) * 86400000n, (x) => q(civil(x / 86400000n))));
col('t32', new A.TimeMillisecond(), fixed(new A.TimeMillisecond(), Int32Array, 1, (r) => r * 3456789, (x) => q(hms(BigInt(x), 1000n, 3))));
col('t64', new A.TimeNanosecond(), fixed(new A.TimeNanosecond(), BigInt64Array, 1, (r) => BigInt(r) * 3456789012345n, (x) => q(hms(x, 1000000000n, 9))));
for (const [u, T] of [['s', A.TimestampSecond], ['ms', A.TimestampMillisecond], ['us', A.TimestampMicrosecond], ['ns', A.TimestampNanosecond]])
  for (const tz of [null, 'UTC'])
    col(`ts_${u}${tz ? '_tz' : ''}`, new T(tz), fixed(new T(tz), BigInt64Array, 1,
      (r) => (BigInt(r) - 10n) * 123456789123n * PER[u][0] / 1000n,
      (x) => q(ts(x, PER[u][0], PER[u][1], !!tz))));
for (const [u, T] of [['s', A.DurationSecond], ['ms', A.DurationMillisecond], ['us', A.DurationMicrosecond], ['ns', A.DurationNanosecond]])
  col(`dur_${u}`, new T(), fixed(new T(), BigInt64Array, 1, (r) => (BigInt(r) - 10n) * 98765432101n,
    (x) => q(hms(x, PER[u][0], PER[u][1]))));
col('iv_ym', new A.IntervalYearMonth(), fixed(new A.IntervalYearMonth(), Int32Array, 1, (r) => r * 7 - 50, (x) => q(ivl(x, 0, 0n))));
col('iv_dt', new A.IntervalDayTime(), fixed(new A.IntervalDayTime(), Int32Array, 2, (r) => [r - 10, r * 3600123], (x) => q(ivl(0, x[0], BigInt(x[1]) * 1000n))));
col('iv_mdn', new A.IntervalMonthDayNano(), fixed(new A.IntervalMonthDayNano(), Int32Array, 4,
  (r) => { const ns = BigInt(r) * 1000001000n; return [r - 3, 2 * r, Number(ns & 0xffffffffn) | 0, Number(ns >> 32n)]; },
  (x) => q(ivl(x[0], x[1], (BigInt(x[3]) << 32n | BigInt(x[2] >>> 0)) / 1000n))));

const strs = ['a"b', 'tab\there', 'é ünï ✓', '', 'back\\slash', 'line\nbreak', '\\N'];
function varlen(type, Off, enc, text) {
  return (b) => {
    const v = valid(b), offs = new Off(ROWS + 1), parts = [], exp = [];
    let n = 0;
    for (let i = 0; i < ROWS; i++) {
      const bytes = enc(b * ROWS + i);
      parts.push(bytes);
      n += bytes.length;
      offs[i + 1] = typeof offs[0] === 'bigint' ? BigInt(n) : n;
      exp.push(v[i] ? text(bytes) : 'null');
    }
    const data = new Uint8Array(n);
    let o = 0;
    for (const p of parts) { data.set(p, o); o += p.length; }
    return [A.makeData({ type, length: ROWS, nullCount: nulls(v), nullBitmap: bitmap(v), valueOffsets: offs, data }), exp];
  };
}
const utf8 = (r) => new TextEncoder().encode(strs[r % strs.length]);
const raw = (r) => Uint8Array.from({ length: r % 5 }, (_, k) => (r * 53 + k * 97) & 255);
col('s', new A.Utf8(), varlen(new A.Utf8(), Int32Array, utf8, (x) => q(new TextDecoder().decode(x))));
col('ls', new A.LargeUtf8(), varlen(new A.LargeUtf8(), BigInt64Array, utf8, (x) => q(new TextDecoder().decode(x))));
col('bin', new A.Binary(), varlen(new A.Binary(), Int32Array, raw, (x) => q(blob(x))));
col('lbin', new A.LargeBinary(), varlen(new A.LargeBinary(), BigInt64Array, raw, (x) => q(blob(x))));
col('fsb', new A.FixedSizeBinary(3), fixed(new A.FixedSizeBinary(3), Uint8Array, 3,
  (r) => [r & 255, 0x5c, (r * 31) & 255], (x) => q(blob(x))));

// nested: list<int32>, fixed_size_list<int16>[2], struct, map, unions
const i32data = (vals, vv) => A.makeData({ type: new A.Int32(), length: vals.length, nullCount: nulls(vv), nullBitmap: bitmap(vv), data: Int32Array.from(vals) });
const listType = new A.List(new A.Field('item', new A.Int32(), true));
col('lst', listType, (b) => {
  const v = valid(b), offs = new Int32Array(ROWS + 1), vals = [], vv = [], exp = [];
  for (let i = 0; i < ROWS; i++) {
    const r = b * ROWS + i, items = [];
    for (let k = 0; k < r % 4; k++) { const x = r * 10 + k; const ok = k !== 2; vals.push(x); vv.push(ok); items.push(ok ? String(x) : 'null'); }
    offs[i + 1] = vals.length;
    exp.push(v[i] ? `[${items.join(',')}]` : 'null');
  }
  return [A.makeData({ type: listType, length: ROWS, nullCount: nulls(v), nullBitmap: bitmap(v), valueOffsets: offs, child: i32data(vals, vv) }), exp];
});
const fslType = new A.FixedSizeList(2, new A.Field('item', new A.Int16(), true));
col('fsl', fslType, (b) => {
  const v = valid(b), vals = new Int16Array(ROWS * 2), exp = [];
  for (let i = 0; i < ROWS; i++) { const r = b * ROWS + i; vals[2 * i] = r; vals[2 * i + 1] = -r; exp.push(v[i] ? `[${r},${-r}]` : 'null'); }
  const child = A.makeData({ type: new A.Int16(), length: ROWS * 2, nullCount: 0, data: vals });
  return [A.makeData({ type: fslType, length: ROWS, nullCount: nulls(v), nullBitmap: bitmap(v), child }), exp];
});
const stType = new A.Struct([new A.Field('x', new A.Int32(), true), new A.Field('y', new A.Utf8(), true)]);
col('st', stType, (b) => {
  const v = valid(b), xs = [], xv = [], exp = [];
  const [ys, yexp] = varlen(new A.Utf8(), Int32Array, utf8, (x) => q(new TextDecoder().decode(x)))(b + 1);
  for (let i = 0; i < ROWS; i++) { const r = b * ROWS + i; xs.push(r * 3); xv.push(r % 3 !== 2); exp.push(v[i] ? `{"x":${r % 3 !== 2 ? r * 3 : 'null'},"y":${yexp[i]}}` : 'null'); }
  return [A.makeData({ type: stType, length: ROWS, nullCount: nulls(v), nullBitmap: bitmap(v), children: [i32data(xs, xv), ys] }), exp];
});
const entType = new A.Struct([new A.Field('key', new A.Utf8(), false), new A.Field('value', new A.Int32(), true)]);
const mapType = new A.Map_(new A.Field('entries', entType, false));
col('mp', mapType, (b) => {
  const v = valid(b), offs = new Int32Array(ROWS + 1), keys = [], vals = [], vv = [], exp = [];
  for (let i = 0; i < ROWS; i++) {
    const r = b * ROWS + i, items = [];
    for (let k = 0; k < r % 3; k++) { const key = `k${r}"${k}`; keys.push(key); vals.push(r + k); vv.push(k !== 1); items.push(`${q(key)}:${k !== 1 ? r + k : 'null'}`); }
    offs[i + 1] = keys.length;
    exp.push(v[i] ? `{${items.join(',')}}` : 'null');
  }
  const enc = keys.map((k) => new TextEncoder().encode(k));
  const koffs = new Int32Array(keys.length + 1);
  enc.forEach((e, k) => { koffs[k + 1] = koffs[k] + e.length; });
  const kdata = new Uint8Array(koffs[keys.length]);
  enc.forEach((e, k) => kdata.set(e, koffs[k]));
  const kd = A.makeData({ type: new A.Utf8(), length: keys.length, nullCount: 0, valueOffsets: koffs, data: kdata });
  const ent = A.makeData({ type: entType, length: keys.length, nullCount: 0, children: [kd, i32data(vals, vv)] });
  return [A.makeData({ type: mapType, length: ROWS, nullCount: nulls(v), nullBitmap: bitmap(v), valueOffsets: offs, child: ent }), exp];
});
const uFields = () => [new A.Field('i', new A.Int32(), true), new A.Field('f', new A.Float64(), true)];
const duType = new A.DenseUnion([5, 9], uFields());
col('du', duType, (b) => {
  const ids = new Int8Array(ROWS), offs = new Int32Array(ROWS), is = [], iv = [], fs_ = [], exp = [];
  for (let i = 0; i < ROWS; i++) {
    const r = b * ROWS + i;
    if (r % 2) { ids[i] = 9; offs[i] = fs_.length; fs_.push(r + 0.5); exp.push(`{"tag":9,"value":${r + 0.5}}`); }
    else { ids[i] = 5; offs[i] = is.length; is.push(r); iv.push(r % 4 !== 0); exp.push(`{"tag":5,"value":${r % 4 ? r : 'null'}}`); }
  }
  const fd = A.makeData({ type: new A.Float64(), length: fs_.length, nullCount: 0, data: Float64Array.from(fs_) });
  return [A.makeData({ type: duType, length: ROWS, typeIds: ids, valueOffsets: offs, children: [i32data(is, iv), fd] }), exp];
});
const suType = new A.SparseUnion([0, 1], uFields());
col('su', suType, (b) => {
  const ids = new Int8Array(ROWS), is = [], fs_ = [], exp = [];
  for (let i = 0; i < ROWS; i++) {
    const r = b * ROWS + i;
    ids[i] = r % 3 === 0 ? 1 : 0;
    is.push(-r); fs_.push(r * 0.25);
    exp.push(ids[i] ? `{"tag":1,"value":${r === 0 ? '0.0' : String(r * 0.25).includes('.') ? r * 0.25 : (r * 0.25) + '.0'}}` : `{"tag":0,"value":${-r}}`);
  }
  const fd = A.makeData({ type: new A.Float64(), length: ROWS, nullCount: 0, data: Float64Array.from(fs_) });
  return [A.makeData({ type: suType, length: ROWS, typeIds: ids, children: [i32data(is, Array(ROWS).fill(true)), fd] }), exp];
});
const words = ['red', 'green', 'blue', 'a\tb'];
const dictType = new A.Dictionary(new A.Utf8(), new A.Int16(), 0);
const dictVec = A.vectorFromArray(words, new A.Utf8());
col('dict', dictType, (b) => {
  const v = valid(b), idx = new Int16Array(ROWS), exp = [];
  for (let i = 0; i < ROWS; i++) { const r = b * ROWS + i; idx[i] = (r * 7) % words.length; exp.push(v[i] ? q(words[idx[i]]) : 'null'); }
  return [A.makeData({ type: dictType, length: ROWS, nullCount: nulls(v), nullBitmap: bitmap(v), data: idx, dictionary: dictVec }), exp];
});

const schema = new A.Schema(columns.map((c) => new A.Field(c.name, c.type, true)),
  new Map([['written_by', 'tests/arrow/write.mjs']]));
const batches = [], rows = [];
for (let b = 0; b < BATCHES; b++) {
  const made = columns.map((c) => c.make(b));
  const data = A.makeData({ type: new A.Struct(schema.fields), length: ROWS, nullCount: 0, children: made.map((m) => m[0]) });
  batches.push(new A.RecordBatch(schema, data));
  for (let i = 0; i < ROWS; i++)
    rows.push('{' + columns.map((c, k) => `${q(c.name)}:${made[k][1][i]}`).join(',') + '}');
}
fs.writeFileSync(path.join(out, 'expected.jsonl'), rows.join('\n') + '\n');
const table = new A.Table(batches);
fs.writeFileSync(path.join(out, 'all.arrow'), A.tableToIPC(table, 'file'));
fs.writeFileSync(path.join(out, 'all.arrows'), A.tableToIPC(table, 'stream'));
A.compressionRegistry.set(A.CompressionType.LZ4_FRAME, {
  encode: (d) => lz4.compress(d),
  decode: (d) => lz4.decompress(d),
});
const w = new A.RecordBatchFileWriter({ compressionType: A.CompressionType.LZ4_FRAME });
w.write(table);
w.finish();
fs.writeFileSync(path.join(out, 'all-lz4.arrow'), w.toUint8Array(true));
