// FlashAttention forward (FlashAttention-2 style online softmax).
//
//   O[b, h] = softmax(Q[b, h] K[b, h]^T / sqrt(64)) V[b, h]
//
// Q, K, V, O: [batch, heads, seq_len, 64] f16, batch / heads / seq_len
// dynamic, head dim 64 static; f32 accumulation. Tiles: block_M = 64 query
// rows per block, block_N = 64 key rows per step, 128 threads, a 2-stage
// pipeline over the key blocks; grid (ceildiv(seq_len, 64), heads, batch).
// The softmax runs in base 2: scale = 1/sqrt(64) * log2(e), p = exp2(s * scale
// - max * scale).
//
// @flash_attention is the full (non-causal) attention; in
// @flash_attention_causal query q only sees keys k <= q, so the key loop
// stops at the diagonal block and the scores above the diagonal are -inf.
// In both, keys at or past seq_len (the zero-filled tail of the last key
// block) are -inf too.
//
// No NaN: key 0 is unmasked for every query row (also for the rows past
// seq_len of the last query block, whose writes to O are dropped), so every
// row has a finite max after the first key block. The kernels still guard
// the softmax as FlashAttention-3 does ("Check_inf"): a row whose max is
// still -inf subtracts 0 instead (exp2(-inf) = 0 rather than
// exp2(-inf + inf) = NaN), and a row with logsum = 0 is divided by 1.
//
// TileLang (example_mha_fwd, [batch, heads, seq, dim] layout):
//
//   with T.Kernel(T.ceildiv(seq_len, 64), heads, batch, threads=128) as (bx, by, bz):
//       T.copy(Q[bz, by, bx * 64:(bx + 1) * 64, :], Q_shared)
//       T.fill(acc_o, 0); T.fill(logsum, 0); T.fill(scores_max, -T.infinity("float32"))
//       loop_range = (T.min(T.ceildiv(seq_len, 64), T.ceildiv((bx + 1) * 64, 64))
//                     if is_causal else T.ceildiv(seq_len, 64))
//       for k in T.Pipelined(loop_range, num_stages=2):
//           T.copy(K[bz, by, k * 64:(k + 1) * 64, :], K_shared)
//           T.gemm(Q_shared, K_shared, acc_s, transpose_B=True, clear_accum=True,
//                  policy=T.GemmWarpPolicy.FullRow)
//           for i, j in T.Parallel(64, 64):   # key >= seq_len (or > query if causal)
//               acc_s[i, j] = T.if_then_else(masked(i, j), -T.infinity("float32"), acc_s[i, j])
//           T.copy(scores_max, scores_max_prev)
//           T.reduce_max(acc_s, scores_max, dim=1, clear=False)
//           for i in T.Parallel(64):
//               scores_scale[i] = T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
//           for i, j in T.Parallel(64, 64):
//               acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
//           T.reduce_sum(acc_s, scores_sum, dim=1)
//           for i in T.Parallel(64):
//               logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
//           T.copy(acc_s, acc_s_cast)
//           for i, j in T.Parallel(64, 64):
//               acc_o[i, j] *= scores_scale[i]
//           T.copy(V[bz, by, k * 64:(k + 1) * 64, :], V_shared)
//           T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)
//       for i, j in T.Parallel(64, 64):
//           acc_o[i, j] /= logsum[i]
//       T.copy(acc_o, O_shared)
//       T.copy(O_shared, O[bz, by, bx * 64:(bx + 1) * 64, :])

// CHECK: module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">}

// CHECK-LABEL: func.func @flash_attention(
// CHECK-SAME: %[[Q:[^:]+]]: memref<?x?x?x64xf16>, %[[K:[^:]+]]: memref<?x?x?x64xf16>, %[[V:[^:]+]]: memref<?x?x?x64xf16>, %[[O:[^:]+]]: memref<?x?x?x64xf16>)
// CHECK-DAG: %[[BATCH:.+]] = memref.dim %[[Q]], %c0 : memref<?x?x?x64xf16>
// CHECK-DAG: %[[HEADS:.+]] = memref.dim %[[Q]], %c1 : memref<?x?x?x64xf16>
// CHECK-DAG: %[[SEQ:.+]] = memref.dim %[[Q]], %c2 : memref<?x?x?x64xf16>
// CHECK: %[[GX:.+]] = arith.ceildivui %[[SEQ]], %c64 : index
// CHECK: %[[KVB:.+]] = arith.ceildivui %[[SEQ]], %c64 : index
// CHECK: tile.kernel grid(%[[GX]], %[[HEADS]], %[[BATCH]]) threads(128) -> (%bx, %by, %bz) {
// CHECK: %[[NEG_INF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[QS:.+]] = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
// CHECK-NEXT: %[[KS:.+]] = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
// CHECK-NEXT: %[[VS:.+]] = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
// CHECK-NEXT: %[[OS:.+]] = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
// CHECK-NEXT: %[[ACC_S:.+]] = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[ACC_S_CAST:.+]] = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
// CHECK-NEXT: %[[ACC_O:.+]] = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[MAX:.+]] = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[MAX_PREV:.+]] = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[SCALE:.+]] = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[SUM:.+]] = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[LOGSUM:.+]] = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[QROW:.+]] = arith.muli %bx, %c64 : index
// CHECK-NEXT: tile.copy %[[Q]][%bz, %by, %[[QROW]], %c0] to %[[QS]] : memref<?x?x?x64xf16> to memref<64x64xf16, #tile.mem<shared>>
// CHECK-NEXT: tile.clear %[[ACC_O]]
// CHECK-NEXT: tile.clear %[[LOGSUM]]
// CHECK-NEXT: tile.fill %[[MAX]], %[[NEG_INF]]
// CHECK-NEXT: tile.pipelined %[[KI:.+]] = %c0 to %[[KVB]] step %c1 num_stages = 2 {
// CHECK-NEXT: %[[KROW:.+]] = arith.muli %[[KI]], %c64 : index
// CHECK-NEXT: tile.copy %[[K]][%bz, %by, %[[KROW]], %c0] to %[[KS]]
// CHECK-NEXT: tile.gemm %[[QS]], %[[KS]], %[[ACC_S]] {clear_accum, policy = #tile.policy<full_row>, transpose_b} : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
// CHECK-NEXT: tile.parallel (%{{.+}}, %[[J:.+]]) in (64, 64) {
// CHECK-NEXT: %[[KEY:.+]] = arith.addi %[[KROW]], %[[J]] : index
// CHECK-NEXT: %[[PAST:.+]] = arith.cmpi uge, %[[KEY]], %[[SEQ]] : index
// CHECK: arith.select %[[PAST]], %[[NEG_INF]], %{{.+}} : f32
// CHECK: tile.copy %[[MAX]] to %[[MAX_PREV]]
// CHECK-NEXT: tile.reduce <max> %[[ACC_S]] to %[[MAX]] dim 1 {clear = false} : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
// CHECK-NEXT: tile.parallel (%{{.+}}) in (64) {
// CHECK: math.exp2
// CHECK: memref.store %{{.+}}, %[[SCALE]]
// CHECK: tile.parallel (%{{.+}}, %{{.+}}) in (64, 64) {
// CHECK: math.exp2
// CHECK: memref.store %{{.+}}, %[[ACC_S]]
// CHECK: tile.reduce <sum> %[[ACC_S]] to %[[SUM]] dim 1 : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
// CHECK-NEXT: tile.parallel (%{{.+}}) in (64) {
// CHECK: memref.store %{{.+}}, %[[LOGSUM]]
// CHECK: tile.copy %[[ACC_S]] to %[[ACC_S_CAST]] : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<fragment>>
// CHECK-NEXT: tile.parallel (%{{.+}}, %{{.+}}) in (64, 64) {
// CHECK: memref.store %{{.+}}, %[[ACC_O]]
// CHECK: tile.copy %[[V]][%bz, %by, %[[KROW]], %c0] to %[[VS]]
// CHECK-NEXT: tile.gemm %[[ACC_S_CAST]], %[[VS]], %[[ACC_O]] {policy = #tile.policy<full_row>} : memref<64x64xf16, #tile.mem<fragment>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
// CHECK-NEXT: }
// CHECK-NEXT: tile.parallel (%{{.+}}, %{{.+}}) in (64, 64) {
// CHECK: arith.divf
// CHECK: tile.copy %[[ACC_O]] to %[[OS]] : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<shared>>
// CHECK-NEXT: tile.copy %[[OS]] to %[[O]][%bz, %by, %[[QROW]], %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?x?x64xf16>
// CHECK-NEXT: }
// CHECK-NEXT: return

// CHECK-LABEL: func.func @flash_attention_causal(
// CHECK-SAME: %[[Q:[^:]+]]: memref<?x?x?x64xf16>, %[[K:[^:]+]]: memref<?x?x?x64xf16>, %[[V:[^:]+]]: memref<?x?x?x64xf16>, %[[O:[^:]+]]: memref<?x?x?x64xf16>)
// CHECK-DAG: %[[BATCH:.+]] = memref.dim %[[Q]], %c0 : memref<?x?x?x64xf16>
// CHECK-DAG: %[[HEADS:.+]] = memref.dim %[[Q]], %c1 : memref<?x?x?x64xf16>
// CHECK-DAG: %[[SEQ:.+]] = memref.dim %[[Q]], %c2 : memref<?x?x?x64xf16>
// CHECK: %[[GX:.+]] = arith.ceildivui %[[SEQ]], %c64 : index
// CHECK: %[[KVB:.+]] = arith.ceildivui %[[SEQ]], %c64 : index
// CHECK: tile.kernel grid(%[[GX]], %[[HEADS]], %[[BATCH]]) threads(128) -> (%bx, %by, %bz) {
// CHECK: %[[NEG_INF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[QS:.+]] = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
// CHECK-NEXT: %[[KS:.+]] = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
// CHECK-NEXT: %[[VS:.+]] = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
// CHECK-NEXT: %[[OS:.+]] = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
// CHECK-NEXT: %[[ACC_S:.+]] = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[ACC_S_CAST:.+]] = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
// CHECK-NEXT: %[[ACC_O:.+]] = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[MAX:.+]] = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[MAX_PREV:.+]] = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[SCALE:.+]] = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[SUM:.+]] = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[LOGSUM:.+]] = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
// CHECK-NEXT: %[[QROW:.+]] = arith.muli %bx, %c64 : index
// CHECK-NEXT: tile.copy %[[Q]][%bz, %by, %[[QROW]], %c0] to %[[QS]]
// CHECK-NEXT: tile.clear %[[ACC_O]]
// CHECK-NEXT: tile.clear %[[LOGSUM]]
// CHECK-NEXT: tile.fill %[[MAX]], %[[NEG_INF]]
// CHECK-NEXT: %[[QEND:.+]] = arith.addi %[[QROW]], %c64 : index
// CHECK-NEXT: %[[DIAG:.+]] = arith.ceildivui %[[QEND]], %c64 : index
// CHECK-NEXT: %[[END:.+]] = arith.minui %[[KVB]], %[[DIAG]] : index
// CHECK-NEXT: tile.pipelined %[[KI:.+]] = %c0 to %[[END]] step %c1 num_stages = 2 {
// CHECK-NEXT: %[[KROW:.+]] = arith.muli %[[KI]], %c64 : index
// CHECK-NEXT: tile.copy %[[K]][%bz, %by, %[[KROW]], %c0] to %[[KS]]
// CHECK-NEXT: tile.gemm %[[QS]], %[[KS]], %[[ACC_S]] {clear_accum, policy = #tile.policy<full_row>, transpose_b}
// CHECK-NEXT: tile.parallel (%[[I:.+]], %[[J:.+]]) in (64, 64) {
// CHECK-NEXT: %[[KEY:.+]] = arith.addi %[[KROW]], %[[J]] : index
// CHECK-NEXT: %[[PAST:.+]] = arith.cmpi uge, %[[KEY]], %[[SEQ]] : index
// CHECK-NEXT: %[[QUERY:.+]] = arith.addi %[[QROW]], %[[I]] : index
// CHECK-NEXT: %[[FUTURE:.+]] = arith.cmpi ugt, %[[KEY]], %[[QUERY]] : index
// CHECK-NEXT: %[[MASKED:.+]] = arith.ori %[[PAST]], %[[FUTURE]] : i1
// CHECK: arith.select %[[MASKED]], %[[NEG_INF]], %{{.+}} : f32
// CHECK: tile.copy %[[MAX]] to %[[MAX_PREV]]
// CHECK-NEXT: tile.reduce <max> %[[ACC_S]] to %[[MAX]] dim 1 {clear = false}
// CHECK: tile.reduce <sum> %[[ACC_S]] to %[[SUM]] dim 1 :
// CHECK: tile.copy %[[ACC_S]] to %[[ACC_S_CAST]]
// CHECK: tile.copy %[[V]][%bz, %by, %[[KROW]], %c0] to %[[VS]]
// CHECK-NEXT: tile.gemm %[[ACC_S_CAST]], %[[VS]], %[[ACC_O]] {policy = #tile.policy<full_row>}
// CHECK-NEXT: }
// CHECK: tile.copy %[[ACC_O]] to %[[OS]]
// CHECK-NEXT: tile.copy %[[OS]] to %[[O]][%bz, %by, %[[QROW]], %c0]

module attributes {tile.target = #tile.target<cuda, "sm_90a", "+ptx80">} {
  func.func @flash_attention(%Q: memref<?x?x?x64xf16>, %K: memref<?x?x?x64xf16>,
      %V: memref<?x?x?x64xf16>, %O: memref<?x?x?x64xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %batch = memref.dim %Q, %c0 : memref<?x?x?x64xf16>
    %heads = memref.dim %Q, %c1 : memref<?x?x?x64xf16>
    %seq_len = memref.dim %Q, %c2 : memref<?x?x?x64xf16>
    %grid_x = arith.ceildivui %seq_len, %c64 : index
    %kv_blocks = arith.ceildivui %seq_len, %c64 : index
    tile.kernel grid(%grid_x, %heads, %batch) threads(128) -> (%bx, %by, %bz) {
      // 1/sqrt(64) * log2(e): softmax in base 2 with the 1/sqrt(dim) scale folded in.
      %scale = arith.constant 0.180336881 : f32
      %neg_inf = arith.constant 0xFF800000 : f32
      %zero = arith.constant 0.0 : f32
      %one = arith.constant 1.0 : f32
      %Q_shared = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
      %K_shared = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
      %V_shared = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
      %O_shared = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
      %acc_s = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
      %acc_s_cast = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
      %acc_o = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
      %scores_max = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
      %scores_max_prev = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
      %scores_scale = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
      %scores_sum = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
      %logsum = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
      %q_row = arith.muli %bx, %c64 : index
      tile.copy %Q[%bz, %by, %q_row, %c0] to %Q_shared : memref<?x?x?x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.clear %acc_o : memref<64x64xf32, #tile.mem<fragment>>
      tile.clear %logsum : memref<64xf32, #tile.mem<fragment>>
      tile.fill %scores_max, %neg_inf : memref<64xf32, #tile.mem<fragment>>
      tile.pipelined %k = %c0 to %kv_blocks step %c1 num_stages = 2 {
        %k_row = arith.muli %k, %c64 : index
        tile.copy %K[%bz, %by, %k_row, %c0] to %K_shared : memref<?x?x?x64xf16> to memref<64x64xf16, #tile.mem<shared>>
        // acc_s = Q K^T
        tile.gemm %Q_shared, %K_shared, %acc_s {transpose_b, clear_accum, policy = #tile.policy<full_row>}
            : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
        // Mask keys past the end of the sequence: they read as zero, and
        // exp2(0 - max) would otherwise add to the row sums.
        tile.parallel (%i, %j) in (64, 64) {
          %key = arith.addi %k_row, %j : index
          %past_end = arith.cmpi uge, %key, %seq_len : index
          %s = memref.load %acc_s[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
          %s_masked = arith.select %past_end, %neg_inf, %s : f32
          memref.store %s_masked, %acc_s[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
        }
        // Online softmax: new running max, and the factor that rescales what
        // was accumulated under the old one.
        tile.copy %scores_max to %scores_max_prev : memref<64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
        tile.reduce <max> %acc_s to %scores_max dim 1 {clear = false}
            : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
        tile.parallel (%i) in (64) {
          %m_prev = memref.load %scores_max_prev[%i] : memref<64xf32, #tile.mem<fragment>>
          %m = memref.load %scores_max[%i] : memref<64xf32, #tile.mem<fragment>>
          // Check_inf: a row with no unmasked key yet has max -inf; subtract 0
          // instead so that exp2(-inf - (-inf)) = NaN never happens.
          %m_inf = arith.cmpf oeq, %m, %neg_inf : f32
          %m_safe = arith.select %m_inf, %zero, %m : f32
          %a = arith.mulf %m_prev, %scale : f32
          %b = arith.mulf %m_safe, %scale : f32
          %d = arith.subf %a, %b : f32
          %r = math.exp2 %d : f32
          memref.store %r, %scores_scale[%i] : memref<64xf32, #tile.mem<fragment>>
        }
        tile.parallel (%i, %j) in (64, 64) {
          %s = memref.load %acc_s[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
          %m = memref.load %scores_max[%i] : memref<64xf32, #tile.mem<fragment>>
          %m_inf = arith.cmpf oeq, %m, %neg_inf : f32
          %m_safe = arith.select %m_inf, %zero, %m : f32
          %a = arith.mulf %s, %scale : f32
          %b = arith.mulf %m_safe, %scale : f32
          %d = arith.subf %a, %b : f32
          %p = math.exp2 %d : f32
          memref.store %p, %acc_s[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
        }
        tile.reduce <sum> %acc_s to %scores_sum dim 1
            : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
        tile.parallel (%i) in (64) {
          %l = memref.load %logsum[%i] : memref<64xf32, #tile.mem<fragment>>
          %r = memref.load %scores_scale[%i] : memref<64xf32, #tile.mem<fragment>>
          %s = memref.load %scores_sum[%i] : memref<64xf32, #tile.mem<fragment>>
          %lr = arith.mulf %l, %r : f32
          %l_new = arith.addf %lr, %s : f32
          memref.store %l_new, %logsum[%i] : memref<64xf32, #tile.mem<fragment>>
        }
        tile.copy %acc_s to %acc_s_cast : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<fragment>>
        tile.parallel (%i, %j) in (64, 64) {
          %o = memref.load %acc_o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
          %r = memref.load %scores_scale[%i] : memref<64xf32, #tile.mem<fragment>>
          %o_new = arith.mulf %o, %r : f32
          memref.store %o_new, %acc_o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
        }
        tile.copy %V[%bz, %by, %k_row, %c0] to %V_shared : memref<?x?x?x64xf16> to memref<64x64xf16, #tile.mem<shared>>
        // acc_o += P V
        tile.gemm %acc_s_cast, %V_shared, %acc_o {policy = #tile.policy<full_row>}
            : memref<64x64xf16, #tile.mem<fragment>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      }
      // O = acc_o / logsum; a row without any unmasked key (logsum = 0) gives 0.
      tile.parallel (%i, %j) in (64, 64) {
        %o = memref.load %acc_o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
        %l = memref.load %logsum[%i] : memref<64xf32, #tile.mem<fragment>>
        %l_zero = arith.cmpf oeq, %l, %zero : f32
        %l_safe = arith.select %l_zero, %one, %l : f32
        %o_new = arith.divf %o, %l_safe : f32
        memref.store %o_new, %acc_o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
      }
      tile.copy %acc_o to %O_shared : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<shared>>
      tile.copy %O_shared to %O[%bz, %by, %q_row, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?x?x64xf16>
    }
    return
  }

  func.func @flash_attention_causal(%Q: memref<?x?x?x64xf16>, %K: memref<?x?x?x64xf16>,
      %V: memref<?x?x?x64xf16>, %O: memref<?x?x?x64xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %batch = memref.dim %Q, %c0 : memref<?x?x?x64xf16>
    %heads = memref.dim %Q, %c1 : memref<?x?x?x64xf16>
    %seq_len = memref.dim %Q, %c2 : memref<?x?x?x64xf16>
    %grid_x = arith.ceildivui %seq_len, %c64 : index
    %kv_blocks = arith.ceildivui %seq_len, %c64 : index
    tile.kernel grid(%grid_x, %heads, %batch) threads(128) -> (%bx, %by, %bz) {
      // 1/sqrt(64) * log2(e): softmax in base 2 with the 1/sqrt(dim) scale folded in.
      %scale = arith.constant 0.180336881 : f32
      %neg_inf = arith.constant 0xFF800000 : f32
      %zero = arith.constant 0.0 : f32
      %one = arith.constant 1.0 : f32
      %Q_shared = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
      %K_shared = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
      %V_shared = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
      %O_shared = tile.alloc_shared : memref<64x64xf16, #tile.mem<shared>>
      %acc_s = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
      %acc_s_cast = tile.alloc_fragment : memref<64x64xf16, #tile.mem<fragment>>
      %acc_o = tile.alloc_fragment : memref<64x64xf32, #tile.mem<fragment>>
      %scores_max = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
      %scores_max_prev = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
      %scores_scale = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
      %scores_sum = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
      %logsum = tile.alloc_fragment : memref<64xf32, #tile.mem<fragment>>
      %q_row = arith.muli %bx, %c64 : index
      tile.copy %Q[%bz, %by, %q_row, %c0] to %Q_shared : memref<?x?x?x64xf16> to memref<64x64xf16, #tile.mem<shared>>
      tile.clear %acc_o : memref<64x64xf32, #tile.mem<fragment>>
      tile.clear %logsum : memref<64xf32, #tile.mem<fragment>>
      tile.fill %scores_max, %neg_inf : memref<64xf32, #tile.mem<fragment>>
      // Key blocks up to and including the diagonal one:
      // min(ceildiv(seq_len, 64), ceildiv((bx + 1) * 64, 64)).
      %q_end = arith.addi %q_row, %c64 : index
      %diag_blocks = arith.ceildivui %q_end, %c64 : index
      %loop_end = arith.minui %kv_blocks, %diag_blocks : index
      tile.pipelined %k = %c0 to %loop_end step %c1 num_stages = 2 {
        %k_row = arith.muli %k, %c64 : index
        tile.copy %K[%bz, %by, %k_row, %c0] to %K_shared : memref<?x?x?x64xf16> to memref<64x64xf16, #tile.mem<shared>>
        // acc_s = Q K^T
        tile.gemm %Q_shared, %K_shared, %acc_s {transpose_b, clear_accum, policy = #tile.policy<full_row>}
            : memref<64x64xf16, #tile.mem<shared>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
        // Mask keys past the end of the sequence (they read as zero) and,
        // causally, keys after the query.
        tile.parallel (%i, %j) in (64, 64) {
          %key = arith.addi %k_row, %j : index
          %past_end = arith.cmpi uge, %key, %seq_len : index
          %query = arith.addi %q_row, %i : index
          %future = arith.cmpi ugt, %key, %query : index
          %masked = arith.ori %past_end, %future : i1
          %s = memref.load %acc_s[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
          %s_masked = arith.select %masked, %neg_inf, %s : f32
          memref.store %s_masked, %acc_s[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
        }
        // Online softmax: new running max, and the factor that rescales what
        // was accumulated under the old one.
        tile.copy %scores_max to %scores_max_prev : memref<64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
        tile.reduce <max> %acc_s to %scores_max dim 1 {clear = false}
            : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
        tile.parallel (%i) in (64) {
          %m_prev = memref.load %scores_max_prev[%i] : memref<64xf32, #tile.mem<fragment>>
          %m = memref.load %scores_max[%i] : memref<64xf32, #tile.mem<fragment>>
          // Check_inf: a row with no unmasked key yet has max -inf; subtract 0
          // instead so that exp2(-inf - (-inf)) = NaN never happens.
          %m_inf = arith.cmpf oeq, %m, %neg_inf : f32
          %m_safe = arith.select %m_inf, %zero, %m : f32
          %a = arith.mulf %m_prev, %scale : f32
          %b = arith.mulf %m_safe, %scale : f32
          %d = arith.subf %a, %b : f32
          %r = math.exp2 %d : f32
          memref.store %r, %scores_scale[%i] : memref<64xf32, #tile.mem<fragment>>
        }
        tile.parallel (%i, %j) in (64, 64) {
          %s = memref.load %acc_s[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
          %m = memref.load %scores_max[%i] : memref<64xf32, #tile.mem<fragment>>
          %m_inf = arith.cmpf oeq, %m, %neg_inf : f32
          %m_safe = arith.select %m_inf, %zero, %m : f32
          %a = arith.mulf %s, %scale : f32
          %b = arith.mulf %m_safe, %scale : f32
          %d = arith.subf %a, %b : f32
          %p = math.exp2 %d : f32
          memref.store %p, %acc_s[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
        }
        tile.reduce <sum> %acc_s to %scores_sum dim 1
            : memref<64x64xf32, #tile.mem<fragment>> to memref<64xf32, #tile.mem<fragment>>
        tile.parallel (%i) in (64) {
          %l = memref.load %logsum[%i] : memref<64xf32, #tile.mem<fragment>>
          %r = memref.load %scores_scale[%i] : memref<64xf32, #tile.mem<fragment>>
          %s = memref.load %scores_sum[%i] : memref<64xf32, #tile.mem<fragment>>
          %lr = arith.mulf %l, %r : f32
          %l_new = arith.addf %lr, %s : f32
          memref.store %l_new, %logsum[%i] : memref<64xf32, #tile.mem<fragment>>
        }
        tile.copy %acc_s to %acc_s_cast : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<fragment>>
        tile.parallel (%i, %j) in (64, 64) {
          %o = memref.load %acc_o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
          %r = memref.load %scores_scale[%i] : memref<64xf32, #tile.mem<fragment>>
          %o_new = arith.mulf %o, %r : f32
          memref.store %o_new, %acc_o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
        }
        tile.copy %V[%bz, %by, %k_row, %c0] to %V_shared : memref<?x?x?x64xf16> to memref<64x64xf16, #tile.mem<shared>>
        // acc_o += P V
        tile.gemm %acc_s_cast, %V_shared, %acc_o {policy = #tile.policy<full_row>}
            : memref<64x64xf16, #tile.mem<fragment>>, memref<64x64xf16, #tile.mem<shared>> -> memref<64x64xf32, #tile.mem<fragment>>
      }
      // O = acc_o / logsum; a row without any unmasked key (logsum = 0) gives 0.
      tile.parallel (%i, %j) in (64, 64) {
        %o = memref.load %acc_o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
        %l = memref.load %logsum[%i] : memref<64xf32, #tile.mem<fragment>>
        %l_zero = arith.cmpf oeq, %l, %zero : f32
        %l_safe = arith.select %l_zero, %one, %l : f32
        %o_new = arith.divf %o, %l_safe : f32
        memref.store %o_new, %acc_o[%i, %j] : memref<64x64xf32, #tile.mem<fragment>>
      }
      tile.copy %acc_o to %O_shared : memref<64x64xf32, #tile.mem<fragment>> to memref<64x64xf16, #tile.mem<shared>>
      tile.copy %O_shared to %O[%bz, %by, %q_row, %c0] : memref<64x64xf16, #tile.mem<shared>> to memref<?x?x?x64xf16>
    }
    return
  }
}
