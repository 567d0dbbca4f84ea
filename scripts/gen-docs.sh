#!/usr/bin/env bash
# Regenerates the committed op and pass reference (docs/generated) from ODS.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ninja -C build mlir-doc
rm -rf docs/generated && mkdir -p docs/generated
cp -r build/docs/Dialects build/docs/Passes docs/generated/
