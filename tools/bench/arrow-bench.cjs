// tools/bench/arrow-bench.cjs: the apache-arrow (npm, JavaScript) side of
// tools/bench/bench-arrow.sh.
//
//   node arrow-bench.cjs gen FILE ROWS   write FILE: int64 `seq`, double
//                                        `dbl`, utf8 `str` (1000 distinct
//                                        values), batches of 1M rows,
//                                        uncompressed file format
//   node arrow-bench.cjs cat FILE COL    read FILE with apache-arrow's
//                                        RecordBatchReader and write COL's
//                                        values, one per line, to stdout;
//                                        prints its own time (ms) to stderr
// apache-arrow comes from tests/arrow/node_modules (tests/arrow/package.json).
const path = require('path');
const fs = require('fs');
const req = require('module').createRequire(
  path.join(__dirname, '..', '..', 'tests', 'arrow', 'package.json'));
const A = req('apache-arrow');

const [, , what, file, arg] = process.argv;
const BATCH = 1000000;

if (what === 'gen') {
  const rows = Number(arg);
  const words = Array.from({ length: 1000 }, (_, i) => Buffer.from(`word-${i * 7919 % 1000}`));
  const schema = new A.Schema([new A.Field('seq', new A.Int64(), false),
    new A.Field('dbl', new A.Float64(), false), new A.Field('str', new A.Utf8(), false)]);
  const fd = fs.openSync(file, 'w');
  const w = new A.RecordBatchFileWriter();
  w.reset(undefined, schema);
  const flush = () => { const c = w.toUint8Array ? null : null; };
  (async () => {
    const sink = fs.createWriteStream(null, { fd });
    w.pipe(sink);
    for (let s = 0; s < rows; s += BATCH) {
      const n = Math.min(BATCH, rows - s);
      const seq = new BigInt64Array(n), dbl = new Float64Array(n);
      const offs = new Int32Array(n + 1);
      let bytes = 0;
      for (let i = 0; i < n; i++) {
        seq[i] = BigInt(s + i); dbl[i] = (s + i) * 0.37;
        bytes += words[(s + i) % 1000].length; offs[i + 1] = bytes;
      }
      const data = new Uint8Array(bytes);
      for (let i = 0; i < n; i++) data.set(words[(s + i) % 1000], offs[i]);
      const cols = [A.makeData({ type: new A.Int64(), length: n, data: seq }),
        A.makeData({ type: new A.Float64(), length: n, data: dbl }),
        A.makeData({ type: new A.Utf8(), length: n, valueOffsets: offs, data })];
      w.write(new A.RecordBatch(schema, A.makeData({ type: new A.Struct(schema.fields), length: n, children: cols })));
    }
    w.finish();
    await new Promise((r) => sink.on('finish', r));
  })();
} else if (what === 'cat') {
  const t0 = process.hrtime.bigint();
  const reader = A.RecordBatchReader.from(fs.readFileSync(file));
  const out = fs.openSync('/dev/stdout', 'w');
  for (const batch of reader) {
    const v = batch.getChild(arg);
    const parts = new Array(v.length);
    for (let i = 0; i < v.length; i++) parts[i] = String(v.get(i));
    fs.writeSync(out, parts.join('\n') + '\n');
  }
  console.error(Number(process.hrtime.bigint() - t0) / 1e6);
}
