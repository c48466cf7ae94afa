#!/usr/bin/env python3
"""Mutation fuzzing of tile-opt: bad input must give a diagnostic, never a crash.

Takes the dialect tests and the examples, mutates a few whitespace-separated
tokens of each (drops one, duplicates another, or puts in a hostile token:
0, -1, a huge number, another type or memory space...), and runs tile-opt
with each pipeline. Exit status 0 (accepted) or 1 (diagnosed) is fine;
anything else (a signal, an abort) is a crash: the input is saved under
--out and reported. Exits 1 if any crash was found.

Usage: fuzz_tile_opt.py [--build DIR] [--seed N] [--count N] [--lowering]
  --lowering  also run the whole tile-to-cpu and tile-to-nvvm pipelines
              (slower: they reach LLVM and the NVPTX backend).
"""
import argparse
import glob
import os
import random
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOSTILE = ['0', '-1', '999999999999', 'f16', 'i8', 'index', '?', '[]', '()',
           '#tile.mem<local>', '#tile.mem<shared>', 'cluster(3)']
# A warp-specialized pipeline whose producer also issues the one-off
# copies, through layout inference and the GPU conversion with TMA stores.
PRODUCER_COPIES = [
    '--tile-select-instructions=wgmma-blocked=true wgmma-panels=true tma-store=true',
    '--tile-plan-pipelines=overlap-gemms=true tma=true tma-release=true '
    'warp-specialize=true',
    '--tile-prefetch-copies=producer-copies=true',
    '--tile-infer-layout=keep-conflicts-in-memory=true',
    '--convert-tile-to-gpu', '--tile-place-shared-memory']
PASSES = [
    [],
    ['--canonicalize', '--cse'],
    ['--convert-tile-to-scf'],
    ['--tile-attach-target=kind=cuda chip=sm_90a', '--tile-infer-layout'],
    ['--tile-attach-target=kind=cuda chip=sm_90a', '--convert-tile-to-gpu', '--tile-place-shared-memory'],
    ['--tile-attach-target=kind=rocm chip=gfx942', '--convert-tile-to-gpu', '--tile-place-shared-memory'],
    ['--tile-attach-target=kind=cuda chip=sm_90a',
     '--convert-tile-to-gpu', '--tile-place-shared-memory=reuse-shared-memory=true'],
    # Layouts first: register fragments (row guards among them) and the
    # reuse of shared memory inside warp-specialized sides.
    ['--tile-attach-target=kind=cuda chip=sm_90a', '--tile-infer-layout',
     '--convert-tile-to-gpu', '--tile-place-shared-memory=reuse-shared-memory=true'],
    ['--tile-attach-target=kind=cuda chip=sm_90a', '--tile-plan-pipelines',
     '--convert-tile-to-gpu', '--tile-place-shared-memory=reuse-shared-memory=true'],
    ['--tile-plan-pipelines', '--convert-tile-to-scf'],
    # Masks versioned for whole tiles, the AMD order of the prefetch.
    ['--tile-version-parallel', '--canonicalize', '--convert-tile-to-scf'],
    ['--tile-attach-target=kind=rocm chip=gfx1100', '--tile-version-parallel',
     '--tile-plan-pipelines=prefetch-first',
     '--tile-infer-layout=keep-conflicts-in-memory=true',
     '--convert-tile-to-gpu', '--tile-place-shared-memory'],
    # Layouts read by the register-fragment lowering (as in the pipelines).
    ['--tile-attach-target=kind=cuda chip=sm_90a', '--tile-plan-pipelines',
     '--tile-infer-layout=keep-conflicts-in-memory=true',
     '--convert-tile-to-gpu', '--tile-place-shared-memory=reuse-shared-memory=true'],
    ['--tile-attach-target=kind=rocm chip=gfx942',
     '--tile-infer-layout=keep-conflicts-in-memory=true',
     '--convert-tile-to-gpu', '--tile-place-shared-memory'],
    # The wgmma path as the sm_90a pipeline runs it (overlapped gemms,
    # the warpgroup partition, wgmma).
    ['--tile-attach-target=kind=cuda chip=sm_90a',
     '--tile-select-instructions',
     '--tile-plan-pipelines=overlap-gemms=true',
     '--tile-infer-layout=keep-conflicts-in-memory=true',
     '--convert-tile-to-gpu', '--tile-place-shared-memory'],
    # Persistent kernels, then the CPU lowering.
    ['--tile-make-persistent=blocks=3', '--tile-plan-pipelines',
     '--convert-tile-to-scf'],
    # The sm_90a defaults: blocked operands, TMA copies on mbarriers.
    ['--tile-attach-target=kind=cuda chip=sm_90a',
     '--tile-select-instructions=wgmma-blocked=true wgmma-panels=true',
     '--tile-plan-pipelines=overlap-gemms=true tma=true',
     '--tile-infer-layout=keep-conflicts-in-memory=true',
     '--convert-tile-to-gpu', '--tile-place-shared-memory=reuse-shared-memory=true'],
    # Stages released on mbarriers, wgmma tall rows, FMA contraction.
    ['--tile-attach-target=kind=cuda chip=sm_90a',
     '--tile-select-instructions=wgmma-blocked=true wgmma-panels=true wgmma-tall-rows=true',
     '--tile-plan-pipelines=overlap-gemms=true tma=true tma-release=true',
     '--tile-infer-layout=keep-conflicts-in-memory=true',
     '--convert-tile-to-gpu', '--tile-place-shared-memory',
     '--tile-contract-float-ops'],
    # Warp specialization with ping-pong: a producer warpgroup, thread
    # ranges, named barriers, turns.
    ['--tile-attach-target=kind=cuda chip=sm_90a',
     '--tile-select-instructions=wgmma-blocked=true wgmma-panels=true',
     '--tile-plan-pipelines=overlap-gemms=true tma=true tma-release=true '
     'warp-specialize=true '
     'pingpong=true',
     '--tile-infer-layout=keep-conflicts-in-memory=true',
     '--convert-tile-to-gpu', '--tile-place-shared-memory'],
    # One-off copies prefetched above loops (after the warp-specialized
    # planner, as in the sm_90a pipeline), and on the CPU path.
    ['--tile-attach-target=kind=cuda chip=sm_90a',
     '--tile-select-instructions=wgmma-blocked=true wgmma-panels=true',
     '--tile-plan-pipelines=overlap-gemms=true tma=true tma-release=true '
     'warp-specialize=true',
     '--tile-prefetch-copies',
     '--tile-infer-layout=keep-conflicts-in-memory=true',
     '--convert-tile-to-gpu', '--tile-place-shared-memory'],
    ['--tile-prefetch-copies', '--convert-tile-to-scf'],
    # Persistent and warp-specialized (the producer loops over the tiles),
    # staging tiles swizzled by layout inference, TMA stores.
    ['--tile-attach-target=kind=cuda chip=sm_90a',
     '--tile-make-persistent=blocks=3',
     '--tile-select-instructions=wgmma-blocked=true wgmma-panels=true tma-store=true',
     '--tile-plan-pipelines=overlap-gemms=true tma=true tma-release=true '
     'warp-specialize=true',
     '--tile-infer-layout=keep-conflicts-in-memory=true',
     '--convert-tile-to-gpu=stmatrix=true', '--tile-place-shared-memory'],
    # ... with the producer issuing the one-off copies once per tile, and
    # the TMA stores' read waits deferred to the next tile.
    ['--tile-attach-target=kind=cuda chip=sm_90a',
     '--tile-make-persistent=blocks=3',
     *PRODUCER_COPIES],
    # The dynamic tile schedule: on the CPU, and warp-specialized (the
    # producer takes each tile and hands it to the consumers).
    ['--tile-make-persistent=blocks=3 dynamic-tiles=true', '--tile-plan-pipelines',
     '--convert-tile-to-scf'],
    ['--tile-attach-target=kind=cuda chip=sm_90a',
     '--tile-make-persistent=blocks=3 dynamic-tiles=true',
     *PRODUCER_COPIES],
]
LOWERINGS = [
    ['--tile-to-cpu'],
    ['--tile-to-nvvm=chip=sm_90a format=isa'],
    ['--tile-to-nvvm=chip=sm_90a format=isa warp-specialize pingpong'],
    ['--tile-to-nvvm=chip=sm_90a format=isa persistent stmatrix'],
    ['--tile-to-nvvm=chip=sm_90a format=isa persistent dynamic-tiles '
     'producer-copies'],
    ['--tile-to-nvvm=chip=sm_90a format=isa warp-specialize=false ftz=false'],
    ['--tile-to-rocdl=chip=gfx1100 format=isa'],
]


def mutate(rng, text):
    tokens = text.split(' ')
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(tokens))
        r = rng.random()
        if r < 0.4:
            tokens[i] = ''
        elif r < 0.7:
            tokens[i] = rng.choice(tokens)
        else:
            tokens[i] = rng.choice(HOSTILE)
    return ' '.join(tokens)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--build', default=os.path.join(ROOT, 'build'))
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--count', type=int, default=200)
    parser.add_argument('--lowering', action='store_true')
    parser.add_argument('--out', default='/tmp/tile-fuzz')
    args = parser.parse_args()

    tile_opt = os.path.join(args.build, 'bin', 'tile-opt')
    sources = sorted(glob.glob(os.path.join(ROOT, 'test/Dialect/Tile/*.mlir')) +
                     glob.glob(os.path.join(ROOT, 'examples/*.mlir')) +
                     glob.glob(os.path.join(ROOT, 'test/Integration/*.mlir')))
    pipelines = PASSES + (LOWERINGS if args.lowering else [])
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    case = os.path.join(args.out, 'case.mlir')
    crashes = diagnosed = 0
    for n in range(args.count):
        source = rng.choice(sources)
        text = mutate(rng, open(source).read())
        with open(case, 'w') as f:
            f.write(text)
        for passes in pipelines:
            cmd = [tile_opt, case, '-o', os.devnull,
                   '--allow-unregistered-dialect'] + passes
            try:
                p = subprocess.run(cmd, capture_output=True, text=True,
                                   timeout=120)
            except subprocess.TimeoutExpired:
                p = None
            if p is not None and p.returncode in (0, 1):
                diagnosed += p.returncode
                continue
            crashes += 1
            saved = os.path.join(args.out, 'crash-%d-%d.mlir' % (args.seed, n))
            with open(saved, 'w') as f:
                f.write(text)
            why = 'timeout' if p is None else 'exit %d' % p.returncode
            print('CRASH (%s) from %s: %s %s' % (
                why, os.path.relpath(source, ROOT), saved, ' '.join(passes)))
            break
    print('%d inputs, %d diagnosed runs, %d crashes' % (args.count, diagnosed,
                                                         crashes))
    return 1 if crashes else 0


if __name__ == '__main__':
    sys.exit(main())
