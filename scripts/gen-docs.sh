#!/usr/bin/env bash
# Regenerates the committed op, interface and pass reference (docs/generated)
# from ODS.
# Uses $SOFTMAX_BUILD_DIR (default build/), like the other scripts.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/common.sh
ninja -C "$BUILD_DIR" mlir-doc
rm -rf docs/generated && mkdir -p docs/generated
cp -r "$BUILD_DIR/docs/Dialects" "$BUILD_DIR/docs/Interfaces" \
  "$BUILD_DIR/docs/Passes" docs/generated/
