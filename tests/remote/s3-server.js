// tests/remote/s3-server.js: an S3-compatible server on 127.0.0.1 that
// checks Signature V4 (npm @20minutes/s3rver), for tests/remote/s3.sh.
//   node s3-server.js DIR
// Objects are kept under DIR.  The one access key it accepts is
// S3_ACCESS_KEY with secret S3_SECRET_KEY (from the environment, never
// the command line); s3rver's built-in key is revoked.  Requests without
// an Authorization header are served anonymously.  Prints "port N" once
// it listens on a free port, then serves until SIGTERM.
'use strict';

const S3rver = require('@20minutes/s3rver');
const Account = require('@20minutes/s3rver/lib/models/account');

const dir = process.argv[2];
const ak = process.env.S3_ACCESS_KEY;
const sk = process.env.S3_SECRET_KEY;
if (!dir || !ak || !sk) {
  console.error('usage: S3_ACCESS_KEY=... S3_SECRET_KEY=... node s3-server.js DIR');
  process.exit(2);
}
Account.DUMMY_ACCOUNT.revokeAccessKey('S3RVER');
Account.DUMMY_ACCOUNT.createKeyPair(ak, sk);

const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory: dir,
  // path style only: 127.0.0.1/BUCKET/KEY
  vhostBuckets: false,
});
server.run().then(
  (addr) => console.log(`port ${addr.port}`),
  (err) => {
    console.error(`s3-server: ${err.message}`);
    process.exit(1);
  },
);
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
