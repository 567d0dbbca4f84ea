#!/bin/bash
# L2 and DRAM sector counts of our decode kernel and cuDNN's on B8 H32
# Hkv8 L32768 (ncu metrics, clocks left alone): how many L2 sector
# requests each DRAM sector read costs.
#   bash bench/gpu/decode_l2.sh <lib-dir> <out-dir>     # on the H200
set -u
LIB=$1; OUT_DIR=$2; PY=${PYTHON:-/opt/torch/.venv/bin/python3}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT_DIR"
M=dram__sectors_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_read_lookup_hit.sum,smsp__inst_executed.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,gpu__time_duration.sum
for k in b8_h32_kv8_l32768__auto; do
  timeout 200 ncu --clock-control none --launch-skip 3 --launch-count 1 --metrics $M \
    "$PY" "$HERE/decode_one.py" --lib-dir "$LIB" "$k" > "$OUT_DIR/l2_$k.txt" 2>&1
done
timeout 200 ncu --clock-control none --launch-skip 3 --launch-count 1 --metrics $M \
  "$PY" "$HERE/decode_one.py" --lib-dir "$LIB" --sdpa cudnn b8_h32_kv8_l32768__auto > "$OUT_DIR/l2_cudnn.txt" 2>&1
