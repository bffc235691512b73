#!/usr/bin/env python3
"""What communication overlapped with a GEMM costs the GEMM, on one GPU (presets' overlap_slowdown,
docs/model.md "What overlapping costs").

NCCL runs a collective as one thread block per channel (CTA of 512-640 threads), each copying
its share between the GPU's memory and the link at the link's pace and holding its SM meanwhile
(the spin-waits of prims_simple.h / prims_ll128.h). This script stands in for such a collective
with a copy kernel of `blocks` thread blocks of 512 threads, each moving 256 KiB chunks through
the GPU's own memory at a paced rate (its thread 0 spin-waits on %globaltimer between chunks, as
NCCL's blocks wait on the link): the SMs it holds, the HBM traffic of the bytes a link moves
(read here and written here, where a send reads here and a receive writes here), and nothing of
the link. It is launched first on a side stream, then a bf16 GEMM repeats on the main stream
while it runs. Reported per (GEMM shape, blocks, pace): the GEMM's time alone and beside the
copy, the compute lost per second of overlap, 1 - alone / beside (what overlap_slowdown means),
and the copy's achieved rate.

Usage: python3 measure_overlap.py --out overlap.json
The copy kernel is compiled by NVRTC (the libnvrtc of PyTorch's CUDA wheels, looked up where pip
put it) and loaded with torch.cuda._utils._cuda_load_module (PyTorch >= 2.8): no CUDA toolkit.
--poll all makes every thread of a block poll the clock (NCCL's LL and LL128 protocols poll in
every thread) instead of one thread behind a barrier (Simple).
"""
import argparse
import ctypes
import glob
import os
import json
import statistics
import subprocess
import sys

import torch
import torch.cuda._utils as cuda_utils

KERNEL = r"""
extern "C" __global__ void paced_copy(const int4* __restrict__ src, int4* __restrict__ dst,
                                      int slots, int chunk_vec, int chunks, int ns_per_chunk,
                                      int poll_all) {
  unsigned long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (int i = 0; i < chunks; ++i) {
    const long long base = ((i * (long long)gridDim.x + blockIdx.x) % slots) * chunk_vec;
    for (int j = threadIdx.x; j < chunk_vec; j += blockDim.x) dst[base + j] = src[base + j];
    if (ns_per_chunk > 0) {
      __syncthreads();
      if (poll_all || threadIdx.x == 0) {
        unsigned long long now;
        do {
          asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        } while (now - start < (unsigned long long)(i + 1) * ns_per_chunk);
      }
      __syncthreads();
    }
  }
}
"""
THREADS = 512
CHUNK_BYTES = 256 * 1024
BUFFER_BYTES = 1 << 30  # twice L2 many times over
SHAPES = [(8192, 8192, 8192), (16384, 3584, 8192), (4096, 4096, 4096), (8192, 1024, 8192)]
BLOCKS = [4, 8, 16, 24, 32, 48]  # NCCL: one block per channel, 16-32 on NVLink
PACES_GB_PER_S = [0, 25, 50, 100, 200, 400]  # 0: as fast as the blocks can copy; IB to NVLink
REPEATS = 3


def nvrtc_library():
    """libnvrtc: by its plain name, its versioned sonames, or inside the nvidia-* wheels."""
    site = os.path.dirname(os.path.dirname(torch.__file__))
    names = ["libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"] + sorted(
        glob.glob(os.path.join(site, "nvidia", "**", "libnvrtc.so*"), recursive=True))
    for name in names:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise RuntimeError("libnvrtc not found")


def nvrtc_ptx(source, name):
    """PTX of `source` for this GPU's compute capability, by NVRTC (no CUDA toolkit needed)."""
    nvrtc = nvrtc_library()
    program = ctypes.c_void_p()
    if nvrtc.nvrtcCreateProgram(ctypes.byref(program), source.encode(), f"{name}.cu".encode(),
                                0, None, None):
        raise RuntimeError("nvrtcCreateProgram failed")
    major, minor = torch.cuda.get_device_capability()
    options = [f"--gpu-architecture=compute_{major}{minor}".encode()]
    if nvrtc.nvrtcCompileProgram(program, len(options), (ctypes.c_char_p * len(options))(*options)):
        size = ctypes.c_size_t()
        nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        nvrtc.nvrtcGetProgramLog(program, log)
        raise RuntimeError(f"NVRTC: {log.value.decode()}")
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetPTXSize(program, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetPTX(program, ptx)
    nvrtc.nvrtcDestroyProgram(ctypes.byref(program))
    return ptx.value


def copy_kernel():
    """launch(blocks, args, stream) of the paced copy, compiled by NVRTC."""
    ptx = nvrtc_ptx(KERNEL, "paced_copy")
    kernel = cuda_utils._cuda_load_module(ptx, ["paced_copy"])["paced_copy"]
    return lambda blocks, args, stream: kernel(grid=(blocks, 1, 1), block=(THREADS, 1, 1),
                                               args=args, stream=stream)


def events():
    return torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--poll", choices=("one", "all"), default="one",
                        help="one thread of a block waits for the pace while the rest wait at a "
                        "barrier (NCCL's Simple protocol), or every thread polls (LL, LL128)")
    parser.add_argument("--blocks", type=int, nargs="*", default=BLOCKS)
    parser.add_argument("--paces", type=int, nargs="*", default=PACES_GB_PER_S)
    args = parser.parse_args()
    launch = copy_kernel()
    poll_all = 1 if args.poll == "all" else 0
    src = torch.ones(BUFFER_BYTES // 4, device="cuda", dtype=torch.float32)
    dst = torch.zeros_like(src)
    chunk_vec = CHUNK_BYTES // 16
    slots = BUFFER_BYTES // CHUNK_BYTES
    side = torch.cuda.Stream()

    def launch_copy(blocks, chunks, ns_per_chunk):
        start, end = events()
        start.record(side)
        launch(blocks, [src, dst, slots, chunk_vec, chunks, ns_per_chunk, poll_all], side)
        end.record(side)
        return start, end

    def gemm_loop_s(a, b, c, reps):
        start, end = events()
        start.record()
        for _ in range(reps):
            torch.matmul(a, b, out=c)
        end.record()
        return start, end

    result = {"device": torch.cuda.get_device_name(0),
              "multiprocessors": torch.cuda.get_device_properties(0).multi_processor_count,
              "torch": torch.__version__, "poll": args.poll,
              "command": " ".join(sys.argv), "threads_per_block": THREADS,
              "chunk_bytes": CHUNK_BYTES, "copy_alone": [], "samples": []}
    try:
        result["nvidia_smi"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version,clocks.max.sm,power.limit",
             "--format=csv"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        pass

    # Each block count's unpaced rate, alone (bytes copied per second; HBM moves twice that).
    unpaced_gb_per_s = {}
    for blocks in args.blocks:
        launch_copy(blocks, 64, 0)
        torch.cuda.synchronize()
        chunks = 4096
        start, end = launch_copy(blocks, chunks, 0)
        torch.cuda.synchronize()
        seconds = start.elapsed_time(end) / 1e3
        unpaced_gb_per_s[blocks] = chunks * blocks * CHUNK_BYTES / seconds / 1e9
        result["copy_alone"].append({"blocks": blocks, "gb_per_s": unpaced_gb_per_s[blocks]})
        print(f"copy alone, {blocks} blocks: {unpaced_gb_per_s[blocks]:.0f} GB/s", flush=True)

    for m, n, k in SHAPES:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        for _ in range(5):
            torch.matmul(a, b, out=c)
        torch.cuda.synchronize()
        start, end = gemm_loop_s(a, b, c, 3)
        torch.cuda.synchronize()
        reps = max(5, int(0.03 / (start.elapsed_time(end) / 3e3)))
        alone = []
        for _ in range(REPEATS):
            start, end = gemm_loop_s(a, b, c, reps)
            torch.cuda.synchronize()
            alone.append(start.elapsed_time(end) / 1e3 / reps)
        alone_s = statistics.median(alone)
        flops = 2.0 * m * n * k
        print(f"gemm {m}x{n}x{k}: {alone_s * 1e6:.1f} us alone, "
              f"{flops / alone_s / 1e12:.0f} TFLOP/s", flush=True)
        for blocks in args.blocks:
            for pace in args.paces:
                rate = pace if pace else unpaced_gb_per_s[blocks]
                # The copy outlasts the GEMMs: twice their time alone, plus 5 ms.
                copy_s = 2 * reps * alone_s + 0.005
                chunks = int(copy_s * rate * 1e9 / CHUNK_BYTES / blocks) + 1
                ns_per_chunk = int(CHUNK_BYTES * blocks / (pace * 1e9) * 1e9) if pace else 0
                beside, achieved, covered = [], [], True
                for _ in range(REPEATS):
                    torch.cuda.synchronize()
                    copy_start, copy_end = launch_copy(blocks, chunks, ns_per_chunk)
                    start, end = gemm_loop_s(a, b, c, reps)
                    torch.cuda.synchronize()
                    beside.append(start.elapsed_time(end) / 1e3 / reps)
                    copy_seconds = copy_start.elapsed_time(copy_end) / 1e3
                    achieved.append(chunks * blocks * CHUNK_BYTES / copy_seconds / 1e9)
                    covered &= copy_start.elapsed_time(end) <= copy_seconds * 1e3
                beside_s = statistics.median(beside)
                sample = {"m": m, "n": n, "k": k, "gemm_tflop": flops / 1e12, "blocks": blocks,
                          "pace_gb_per_s": pace, "copy_gb_per_s": statistics.median(achieved),
                          "copy_outlasted_gemms": covered, "alone_us": alone_s * 1e6,
                          "beside_us": beside_s * 1e6,
                          "compute_lost_per_s": 1 - alone_s / beside_s}
                result["samples"].append(sample)
                print("  {blocks:2d} blocks, pace {pace_gb_per_s:3d} GB/s (copied "
                      "{copy_gb_per_s:5.0f}): {beside_us:8.1f} us beside, lost "
                      "{compute_lost_per_s:.3f}{flag}".format(
                          **sample, flag="" if covered else " (copy ended first)"), flush=True)
                with open(args.out, "w") as file:
                    json.dump(result, file, indent=1)
        del a, b, c
    with open(args.out, "w") as file:
        json.dump(result, file, indent=1)


if __name__ == "__main__":
    main()
