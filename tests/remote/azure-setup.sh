#!/bin/sh
# tests/remote/azure-setup.sh: make Azurite (npm azurite 3.35.0, the last
# release that runs on Node 20) available to azure.sh: `npm ci` from
# tests/remote/azure/package-lock.json into tests/remote/azure/node_modules,
# which git ignores, through tests/npm-setup.sh.
#
# Exit 0 when azurite-blob is there, 77 (the meson "skip" code) with a
# message when node or npm is missing or the npm registry cannot be
# reached.
set -u
dir=$(cd "$(dirname "$0")/azure" && pwd)

exec sh "$(dirname "$0")/../npm-setup.sh" azurite-setup "$dir" ci \
	"require('azurite/package.json'); require('fs').accessSync('node_modules/.bin/azurite-blob', require('fs').constants.X_OK)" \
	azurite "the Azure test"
