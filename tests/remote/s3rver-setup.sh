#!/bin/sh
# tests/remote/s3rver-setup.sh: make the npm package @20minutes/s3rver
# (an S3-compatible server that checks Signature V4) available to
# s3-server.js: `npm ci` from package-lock.json into
# tests/remote/node_modules, which git ignores, through tests/npm-setup.sh.
#
# Exit 0 when it can be loaded, 77 (the meson "skip" code) with a message
# when node or npm is missing or the npm registry cannot be reached.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
exec sh "$dir/../npm-setup.sh" s3rver-setup "$dir" ci \
	"require('@20minutes/s3rver'); require('@20minutes/s3rver/lib/models/account')" \
	@20minutes/s3rver "the S3 test"
