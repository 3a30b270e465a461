//! The OpenCL ICD: C ABI entry points, dispatch table and object model.
