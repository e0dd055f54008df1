//! libmtpc.so: the pass plugin's entry point. Registration only; the
//! passes live in the `mtpc-passes` crate.
//!
//!   opt-16 -load-pass-plugin=target/release/libmtpc.so \
//!          -passes='mtpc-split<partitions=8;out=part>' in.bc -o out.bc

use llvm_plugin::PassBuilder;

#[llvm_plugin::plugin(name = "mtpc", version = "0.1")]
fn plugin_registrar(builder: &mut PassBuilder) {
    builder.add_module_pipeline_parsing_callback(mtpc_passes::host::parse_module_pipeline_element);
}
