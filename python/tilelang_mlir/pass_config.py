"""TileLang's pass_configs keys (``tilelang.PassConfigKey``), mapped onto the
compiler's compile options.

A ``pass_configs`` dict may mix the compiler's own keys (tile-run's flags
with underscores: ``{"warp_specialize": False}``, listed by
``tilelang_mlir.compile_options()``) and TileLang's, given as members of
``PassConfigKey`` or as their strings (``"tl.disable_warp_specialized"``).
TileLang's keys fall in three groups:

* mapped: the key is a switch the compiler has too, and sets it
  (``MAPPED`` says onto what);
* accepted and ignored, with a warning once per key and process: the key
  tunes TVM's passes, code generation or debugging output that this
  compiler does not have; none of them changes what a correct kernel
  computes;
* refused with the reason: ``TIR_ADD_LOWER_PASS`` (TVM passes);
* anything else (a ``tl.``/``tir.`` key TileLang does not define) is an
  error naming it, as TileLang's own PassContext refuses unknown keys.
"""

import enum
import warnings

__all__ = ["PassConfigKey", "normalize_pass_configs", "MAPPED", "REFUSED"]


class PassConfigKey(str, enum.Enum):
    """TileLang's configuration keys, by their TileLang names."""
    TL_SIMPLIFY = "tl.Simplify"
    TL_DISABLE_BUFFER_INIT_CHECK = "tl.disable_buffer_init_check"
    TL_DISABLE_DATA_RACE_CHECK = "tl.disable_data_race_check"
    TL_DISABLE_PRELOWER_SEMANTIC_CHECK = "tl.disable_prelower_semantic_check"
    TL_DISABLE_WARP_SPECIALIZED = "tl.disable_warp_specialized"
    TL_ENABLE_FAST_MATH = "tl.enable_fast_math"
    TL_PTXAS_REGISTER_USAGE_LEVEL = "tl.ptxas_register_usage_level"
    TL_DEVICE_COMPILE_FLAGS = "tl.device_compile_flags"
    TL_EMIT_LINE_DIRECTIVES = "tl.emit_line_directives"
    TL_CONFIG_INDEX_BITWIDTH = "tl.config_index_bitwidth"
    TL_ENABLE_REDUCER_PLAN_VERBOSE = "tl.enable_reducer_plan_verbose"
    TL_LAYOUT_COST_MODEL = "tl.layout_cost_model"
    TL_REDUCER_FORCE_BASELINE = "tl.reducer_force_baseline"
    TL_DISABLE_TMA_LOWER = "tl.disable_tma_lower"
    TL_DISABLE_SAFE_MEMORY_ACCESS = "tl.disable_safe_memory_legalize"
    TL_DISABLE_VECTORIZE_256 = "tl.disable_vectorize_256"
    TL_ENABLE_ASYNC_COPY = "tl.enable_async_copy"
    TL_ENABLE_LOWER_LDGSTG = "tl.enable_lower_ldgstg"
    TL_ENABLE_LOWER_LDGSTG_PREDICATED = "tl.enable_lower_ldgstg_predicated"
    TL_ENABLE_VECTORIZE_PLANNER_VERBOSE = "tl.enable_vectorize_planner_verbose"
    TL_DISABLE_WGMMA = "tl.disable_wgmma"
    TL_DEBUG_MERGE_SHARED_MEMORY_ALLOCATIONS = "tl.debug_merge_shared_memory_allocations"
    TL_ENABLE_AGGRESSIVE_SHARED_MEMORY_MERGE = "tl.enable_aggressive_shared_memory_merge"
    TL_DISABLE_SHARED_MEMORY_REUSE = "tl.disable_shared_memory_reuse"
    TL_DISABLE_SHUFFLE_ELECT = "tl.disable_shuffle_elect"
    TL_DISABLE_LOOP_UNSWITCHING = "tl.disable_loop_unswitching"
    TL_LOOP_UNSWITCHING_ALLOW_NON_TRIVIAL_ELSE = "tl.loop_unswitching_allow_non_trivial_else"
    TL_IF_STMT_BINDING_INLINE_REPLAYABLE_BINDS = "tl.if_stmt_binding_inline_replayable_binds"
    TL_DISABLE_THREAD_STORAGE_SYNC = "tl.disable_thread_storage_sync"
    TL_FORCE_LET_INLINE = "tl.force_let_inline"
    TL_AST_PRINT_ENABLE = "tl.ast_print_enable"
    TL_LAYOUT_VISUALIZATION_ENABLE = "tl.layout_visualization_enable"
    TL_LAYOUT_VISUALIZATION_FORMATS = "tl.layout_visualization_formats"
    TL_STORAGE_REWRITE_DETECT_INPLACE = "tl.storage_rewrite_detect_inplace"
    TIR_ENABLE_EQUIV_TERMS_IN_CSE = "tir.enable_equiv_terms_in_cse_tir"
    TIR_DISABLE_CSE = "tirx.disable_cse_tir"
    TIR_SIMPLIFY = "tirx.Simplify"
    TIR_DISABLE_STORAGE_REWRITE = "tirx.disable_storage_rewrite"
    TIR_DISABLE_VECTORIZE = "tirx.disable_vectorize"
    TIR_USE_ASYNC_COPY = "tirx.use_async_copy"
    TIR_ENABLE_DEBUG = "tirx.enable_debug"
    TIR_MERGE_STATIC_SMEM = "tirx.merge_static_smem"
    TIR_ADD_LOWER_PASS = "tirx.add_lower_pass"
    TIR_NOALIAS = "tirx.noalias"
    CUDA_KERNELS_OUTPUT_DIR = "cuda.kernels_output_dir"
    TL_DISABLE_OUT_OF_BOUND_WARNING = "tl.disable_out_of_bound_warning"
    TL_ENABLE_DUMP_IR = "tl.enable_dump_ir"
    TL_DUMP_IR_DIR = "tl.dump_ir_path"
    TL_PASS_PROFILE = "tl.pass_profile"
    TL_PASS_PROFILE_THRESHOLD_MS = "tl.pass_profile_threshold_ms"


def _negated(*keys):
    return lambda value: {key: not bool(value) for key in keys}


# The keys that are switches of this compiler too: value -> its options.
MAPPED = {
    PassConfigKey.TL_DISABLE_WARP_SPECIALIZED: (
        _negated("warp_specialize"), "warp_specialize = not value"),
    PassConfigKey.TL_DISABLE_TMA_LOWER: (
        _negated("tma", "tma_store"),
        "tma = tma_store = not value (TMA loads in pipelines and TMA stores)"),
    PassConfigKey.TL_DISABLE_WGMMA: (_negated("wgmma"), "wgmma = not value"),
    PassConfigKey.TL_DISABLE_SHARED_MEMORY_REUSE: (
        _negated("reuse_shared_memory"), "reuse_shared_memory = not value"),
    # nvcc's --use_fast_math flushes denormals; contraction into FMAs, which
    # it also allows, is on here either way (fp_contract), as nvcc's
    # default --fmad=true.
    PassConfigKey.TL_ENABLE_FAST_MATH: (
        lambda value: {"ftz": bool(value)}, "ftz = value"),
}

# Keys whose meaning needs TVM itself: refused with the reason.
REFUSED = {
    PassConfigKey.TIR_ADD_LOWER_PASS:
        "it adds TVM passes to the lowering, and this compiler has no TVM",
}

_by_value = {key.value: key for key in PassConfigKey}
_warned = set()


def normalize_pass_configs(pass_configs):
    """The compiler's pass_configs for a dict that may hold TileLang's keys
    (see the module's documentation). The compiler's own keys pass as
    given; where both set one option, the compiler's own key wins."""
    own, derived = {}, {}
    for key, value in (pass_configs or {}).items():
        name = key.value if isinstance(key, PassConfigKey) else key
        if not isinstance(name, str):
            raise TypeError("pass_configs keys are strings or PassConfigKey "
                            "members, got %r" % (key,))
        member = _by_value.get(name)
        if member is None:
            if name.startswith(("tl.", "tir.", "tirx.", "cuda.")):
                raise ValueError(
                    "pass_configs key %r is not one of TileLang's "
                    "(tilelang_mlir.PassConfigKey) nor the compiler's "
                    "(tilelang_mlir.compile_options())" % name)
            own[name] = value
            continue
        if member in REFUSED:
            raise ValueError("pass_configs[%s] is not supported: %s"
                             % (member.name, REFUSED[member]))
        if member in MAPPED:
            derived.update(MAPPED[member][0](value))
            continue
        if name not in _warned:
            _warned.add(name)
            warnings.warn(
                "pass_configs[%s] is accepted and ignored: it tunes TileLang's "
                "TVM passes or debugging output, which this compiler does not "
                "have; results do not depend on it" % member.name,
                RuntimeWarning, stacklevel=3)
    derived.update(own)
    return derived
