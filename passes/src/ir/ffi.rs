//! The C++ shim's entry points (`shim/*.cpp`, see `shim/shim.h`) and the
//! ownership of the strings it returns. Declarations only: the safe
//! wrappers are in the sibling modules.

use std::ffi::{c_void, CStr};
use std::os::raw::c_char;

use llvm_sys::core::LLVMDisposeMessage;
use llvm_sys::prelude::*;

extern "C" {
    pub(super) fn mtpc_llvm_version_major() -> u32;
    pub(super) fn mtpc_is_dso_local(v: LLVMValueRef) -> bool;
    pub(super) fn mtpc_set_dso_local(v: LLVMValueRef, local: bool);
    pub(super) fn mtpc_keep_library_declarations_unassumed(m: LLVMModuleRef, fs: *const LLVMValueRef, n: usize, stands_for_alias: bool);
    pub(super) fn mtpc_library_function_names(m: LLVMModuleRef, gs: *const LLVMValueRef, n: usize, named: *mut bool);
    pub(super) fn mtpc_bind_code_references_locally(v: LLVMValueRef, name: *const c_char, len: usize, preemptible: bool);
    pub(super) fn mtpc_add_hidden_alias(v: LLVMValueRef, name: *const c_char, len: usize);
    pub(super) fn mtpc_is_thread_local(v: LLVMValueRef) -> bool;
    pub(super) fn mtpc_is_asan_dynamic_init(v: LLVMValueRef) -> bool;
    pub(super) fn mtpc_inline_asm_string(v: LLVMValueRef, len: *mut usize) -> *const c_char;
    pub(super) fn mtpc_instruction_metadata(i: LLVMValueRef, kind: u32) -> LLVMMetadataRef;
    pub(super) fn mtpc_global_metadata(gv: LLVMValueRef, kind: u32, out: *mut LLVMMetadataRef, capacity: usize) -> usize;
    pub(super) fn mtpc_md_node_num_operands(md: LLVMMetadataRef) -> u32;
    pub(super) fn mtpc_md_node_operand(md: LLVMMetadataRef, index: u32, value: *mut LLVMValueRef, s: *mut *const c_char, len: *mut usize);
    pub(super) fn mtpc_function_delete_body(f: LLVMValueRef);
    pub(super) fn mtpc_materialize(gv: LLVMValueRef, message: *mut *mut c_char) -> bool;
    pub(super) fn mtpc_all_bodies_read(m: LLVMModuleRef) -> bool;
    pub(super) fn mtpc_erase_global_if_unused(v: LLVMValueRef) -> bool;
    pub(super) fn mtpc_block_address_function(v: LLVMValueRef) -> LLVMValueRef;
    pub(super) fn mtpc_wrapped_global(v: LLVMValueRef, no_cfi: *mut bool) -> LLVMValueRef;
    pub(super) fn mtpc_named_by_metadata(v: LLVMValueRef) -> bool;
    pub(super) fn mtpc_keep_declarations(m: LLVMModuleRef, decls: *const LLVMValueRef, n: usize);
    pub(super) fn mtpc_debug_location_constants(f: LLVMValueRef, out: *mut LLVMValueRef, capacity: usize) -> usize;
    pub(super) fn mtpc_body_uses(f: LLVMValueRef, out: *mut RawBodyUse, capacity: usize, counts: *mut RawBodyCounts) -> usize;
    pub(super) fn mtpc_load_lazy(
        context: LLVMContextRef,
        data: *const c_char,
        len: usize,
        name: *const c_char,
        module: *mut LLVMModuleRef,
        message: *mut *mut c_char,
    ) -> bool;
    pub(super) fn mtpc_replace_with_declaration(v: LLVMValueRef) -> LLVMValueRef;
    pub(super) fn mtpc_resolve_alias(v: LLVMValueRef);
    pub(super) fn mtpc_split_bitcode_write(m: LLVMModuleRef, keep_use_list_order: bool, data: *mut *const c_char, size: *mut usize) -> *mut std::ffi::c_void;
    pub(super) fn mtpc_buffer_dispose(buffer: *mut std::ffi::c_void);
    pub(super) fn mtpc_write_bitcode_file(m: LLVMModuleRef, path: *const c_char, message: *mut *mut c_char) -> bool;
    pub(super) fn mtpc_replace_module_with_asm(m: LLVMModuleRef, asm: *const c_char, len: usize);
    pub(super) fn mtpc_module_flag_int(m: LLVMModuleRef, name: *const c_char) -> i64;
    pub(super) fn mtpc_module_needs_unwind_tables(m: LLVMModuleRef) -> bool;
    pub(super) fn mtpc_module_erase_flag(m: LLVMModuleRef, name: *const c_char, len: usize) -> bool;
    pub(super) fn mtpc_keep_call_graph_profile_from(m: LLVMModuleRef, callers: *const LLVMValueRef, count: usize) -> i64;
    pub(super) fn mtpc_keep_call_graph_profile_of_definitions(m: LLVMModuleRef) -> i64;
    pub(super) fn mtpc_module_has_asan_dynamic_init(m: LLVMModuleRef) -> bool;
    pub(super) fn mtpc_module_asan_describes_dynamic_init(m: LLVMModuleRef) -> bool;
    pub(super) fn mtpc_module_asan_constructor_registers(m: LLVMModuleRef) -> i32;
    pub(super) fn mtpc_module_drop_asan_constructor(m: LLVMModuleRef) -> bool;
    pub(super) fn mtpc_module_bracket_dynamic_initializers(
        m: LLVMModuleRef,
        skip: *const *const c_char,
        skip_len: *const usize,
        count: usize,
        apply: bool,
    ) -> usize;
    pub(super) fn mtpc_erase_named_metadata(m: LLVMModuleRef, name: *const c_char, len: usize);
    pub(super) fn mtpc_module_restore_sanitized_local_names(
        m: LLVMModuleRef,
        promoted: *const *const c_char,
        promoted_len: *const usize,
        original: *const *const c_char,
        original_len: *const usize,
        count: usize,
    ) -> usize;
    pub(super) fn mtpc_report_fatal_error(message: *const c_char) -> !;
    pub(super) fn mtpc_module_compile_unit_directory(m: LLVMModuleRef, len: *mut usize) -> *const c_char;
    pub(super) fn mtpc_time_trace_enabled() -> bool;
    pub(super) fn mtpc_time_trace_thread_start(granularity_us: u32);
    pub(super) fn mtpc_time_trace_thread_finish();
    pub(super) fn mtpc_time_trace_begin(name: *const c_char, detail: *const c_char);
    pub(super) fn mtpc_time_trace_end();
}

extern "C" {
    pub(super) fn mtpc_host_pipeline_register(pass_builder: *mut c_void);
    pub(super) fn mtpc_run_host_settings(run: *mut c_void) -> *mut c_void;
    pub(super) fn mtpc_run_module_identifier(run: *mut c_void, len: *mut usize) -> *const c_char;
    pub(super) fn mtpc_run_environment(
        run: *mut c_void,
        settings: *mut c_void,
        files: *mut c_void,
        level: i32,
        phase: i32,
        host_writes_object: bool,
        parts_write_objects: bool,
        unwind_tables: bool,
    ) -> *mut c_void;
    pub(super) fn mtpc_debug_files_collect(module: LLVMModuleRef) -> *mut c_void;
    pub(super) fn mtpc_debug_files_free(files: *mut c_void);
    pub(super) fn mtpc_debug_files_table(files: *mut c_void, settings: *mut c_void) -> *mut c_char;
    pub(super) fn mtpc_run_commit(run: *mut c_void);
    pub(super) fn mtpc_run_want_code_generation_split(run: *mut c_void) -> bool;
    pub(super) fn mtpc_run_host_pipeline_tail(run: *mut c_void, level: i32, phase: i32) -> bool;
    pub(super) fn mtpc_run_optimize_whole(run: *mut c_void, level: i32, phase: i32);
    pub(super) fn mtpc_run_lower_type_tests_whole(run: *mut c_void);
    pub(super) fn mtpc_run_foreign_full_lto_last_callbacks(run: *mut c_void) -> usize;
    pub(super) fn mtpc_environment_free(env: *mut c_void);
    pub(super) fn mtpc_environment_build_kit(env: *mut c_void) -> *mut c_void;
    pub(super) fn mtpc_kit_optimize(
        kit: *mut c_void,
        module: LLVMModuleRef,
        label: *const c_char,
        opt_ms: *mut f64,
        error: *mut *mut c_char,
    ) -> bool;
    pub(super) fn mtpc_kit_codegen(
        kit: *mut c_void,
        module: LLVMModuleRef,
        label: *const c_char,
        output: *mut *mut c_void,
        data: *mut *const c_char,
        len: *mut usize,
        codegen_ms: *mut f64,
        diagnostics: *mut *mut c_void,
        error: *mut *mut c_char,
    ) -> bool;
    pub(super) fn mtpc_kit_free(kit: *mut c_void);
    pub(super) fn mtpc_make_declaration(global: LLVMValueRef);
    pub(super) fn mtpc_xxhash64(data: *const c_char, len: usize) -> u64;
    pub(super) fn mtpc_bitcode_digest_without_use_lists(data: *const c_char, len: usize) -> u64;
    pub(super) fn mtpc_describe_declared_functions(module: LLVMModuleRef);
    pub(super) fn mtpc_copies_debug_info(
        module: LLVMModuleRef,
        functions: *const *const c_char,
        function_lengths: *const usize,
        n_functions: usize,
        variables: *const *const c_char,
        variable_lengths: *const usize,
        n_variables: usize,
    ) -> *mut c_void;
    pub(super) fn mtpc_copies_debug_info_apply(module: LLVMModuleRef, copies: *const c_void);
    pub(super) fn mtpc_copies_debug_info_free(copies: *mut c_void);
    pub(super) fn mtpc_trim_compile_units(module: LLVMModuleRef, defined: *const LLVMValueRef, n: usize, primary: bool);
    pub(super) fn mtpc_shared_class_types(
        module: LLVMModuleRef,
        each: unsafe extern "C" fn(*mut c_void, *const c_char, usize),
        context: *mut c_void,
    ) -> *mut c_void;
    pub(super) fn mtpc_shared_class_list_free(list: *mut c_void);
    pub(super) fn mtpc_describe_shared_class_types(
        module: LLVMModuleRef,
        found: *const c_void,
        elsewhere: *const *const c_char,
        lengths: *const usize,
        n: usize,
        declared: *mut usize,
        described: *mut usize,
    );
    pub(super) fn mtpc_kit_adopt_context(kit: *mut c_void, context: LLVMContextRef);
    pub(super) fn mtpc_host_settings_for_triple(triple: *const c_char) -> *mut c_void;
    pub(super) fn mtpc_host_settings_facts(settings: *mut c_void, facts: *mut RawHostFacts);
    pub(super) fn mtpc_host_settings_command_line_arg(settings: *mut c_void, index: usize) -> *const c_char;
    pub(super) fn mtpc_host_settings_triple(settings: *mut c_void, len: *mut usize) -> *const c_char;
    pub(super) fn mtpc_host_settings_free(settings: *mut c_void);
    pub(super) fn mtpc_host_settings_describe(settings: *mut c_void) -> *mut c_char;
    pub(super) fn mtpc_check_asm(settings: *mut c_void, text: *const c_char, len: usize, message: *mut *mut c_char) -> bool;
    pub(super) fn mtpc_assemble_object(
        settings: *mut c_void,
        pieces: *const TextPiece,
        count: usize,
        for_transcript: bool,
        object: *mut *mut c_void,
        data: *mut *const c_char,
        len: *mut usize,
        message: *mut *mut c_char,
    ) -> bool;
    pub(super) fn mtpc_run_object_frame(run: *mut c_void, settings: *mut c_void, len: *mut usize, head_len: *mut usize, message: *mut *mut c_char) -> *mut c_char;
    pub(super) fn mtpc_run_offer_object(run: *mut c_void, settings: *mut c_void, object: *mut c_void, frame: *const c_char, len: usize, head_len: usize);
    pub(super) fn mtpc_write_offered_object(module: *mut c_void, target_machine: *mut c_void, file_type: i32, out: *mut c_void) -> i32;
    pub(super) fn mtpc_diagnostics_free(diagnostics: *mut c_void);
    pub(super) fn mtpc_diagnostics_count(diagnostics: *mut c_void) -> usize;
    pub(super) fn mtpc_diagnostics_function(diagnostics: *mut c_void, index: usize, len: *mut usize) -> *const c_char;
    pub(super) fn mtpc_diagnostics_identity(diagnostics: *mut c_void, index: usize) -> *mut c_char;
    pub(super) fn mtpc_diagnostics_phase(diagnostics: *mut c_void, index: usize) -> i32;
    pub(super) fn mtpc_diagnostics_unavailable_callee(diagnostics: *mut c_void, index: usize, len: *mut usize) -> *const c_char;
    pub(super) fn mtpc_diagnostics_value_count(diagnostics: *mut c_void, index: usize) -> usize;
    pub(super) fn mtpc_diagnostics_value(diagnostics: *mut c_void, index: usize, value: usize, len: *mut usize) -> *const c_char;
    pub(super) fn mtpc_diagnostics_set_value(diagnostics: *mut c_void, index: usize, value: usize, text: *const c_char, len: usize);
    pub(super) fn mtpc_diagnostics_reemit(diagnostics: *mut c_void, index: usize, host: LLVMModuleRef, function: *const c_char, len: usize);
}

/// `MtpcTextPiece` in `shim/assemble.cpp`.
#[repr(C)]
pub(super) struct TextPiece {
    pub data: *const c_char,
    pub len: usize,
}

/// `MtpcBodyUse` in `shim/ir_ops.cpp`: a value and its `MtpcUseRole`.
#[repr(C)]
pub(super) struct RawBodyUse {
    pub(super) value: LLVMValueRef,
    pub(super) role: u32,
}

pub(super) const USE_OPERAND: u32 = 0;
pub(super) const USE_CALLEE: u32 = 1;
pub(super) const USE_INDIRECT_CALL: u32 = 2;

/// `MtpcBodyCounts` in `shim/ir_ops.cpp`.
#[repr(C)]
pub(super) struct RawBodyCounts {
    pub(super) code: u32,
    pub(super) inline_size: u32,
    pub(super) back_edges: u32,
}

/// `MtpcHostFacts` in `shim/partition_compile.cpp`.
#[repr(C)]
pub(super) struct RawHostFacts {
    pub(super) object_format_elf: bool,
    pub(super) arch_x86_64: bool,
    pub(super) integrated_assembler: bool,
    pub(super) split_dwarf: bool,
    pub(super) stack_usage: bool,
    pub(super) pgo_action: i32,
    pub(super) cs_pgo_action: i32,
    pub(super) pseudo_probes: bool,
    pub(super) command_line_args: usize,
    pub(super) debugging_option: *const c_char,
}

impl Default for RawHostFacts {
    fn default() -> Self {
        RawHostFacts {
            object_format_elf: false,
            arch_x86_64: false,
            integrated_assembler: false,
            split_dwarf: false,
            stack_usage: false,
            pgo_action: 0,
            cs_pgo_action: 0,
            pseudo_probes: false,
            command_line_args: 0,
            debugging_option: std::ptr::null(),
        }
    }
}

/// Takes ownership of an LLVM-allocated message.
pub(super) fn take_message(raw: *mut c_char) -> String {
    if raw.is_null() {
        return String::new();
    }
    // SAFETY: LLVM returned a NUL-terminated string that we now own.
    let text = unsafe { CStr::from_ptr(raw) }.to_string_lossy().into_owned();
    unsafe { LLVMDisposeMessage(raw) };
    text
}

/// Takes ownership of a message allocated with malloc by the shim.
pub(super) fn take_malloc_message(raw: *mut c_char) -> String {
    if raw.is_null() {
        return String::new();
    }
    // SAFETY: the shim returned a strdup'ed NUL-terminated string.
    let text = unsafe { CStr::from_ptr(raw) }.to_string_lossy().into_owned();
    unsafe { libc_free(raw.cast()) };
    text
}

extern "C" {
    #[link_name = "free"]
    pub(super) fn libc_free(p: *mut std::ffi::c_void);
}
