//! Links libshadowcl.so so the ICD loader can use it: `-Bsymbolic` (our dispatch table must
//! point at our functions, not at the loader's same-named trampolines) and a version script
//! that exports only what the loader looks up with dlsym.

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let script = format!("{dir}/shadowcl.map");
    println!("cargo:rerun-if-changed=shadowcl.map");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={script}");
}
