//! Samplers.

use crate::consts::*;
use crate::core::context::Context;
use crate::core::object::{self, ClObject, Ref};
use crate::types::*;

pub struct Sampler {
    pub context: Ref<Context>,
    pub normalized: bool,
    pub addressing: cl_addressing_mode,
    pub filter: cl_filter_mode,
    pub properties: Vec<cl_sampler_properties>,
}

impl ClObject for Sampler {
    const TAG: u32 = 0x5C1_0009;
    const INVALID: i32 = CL_INVALID_SAMPLER;
    type Handle = cl_sampler;
}

impl Sampler {
    /// The `sampler_t` bits kernels see (`CLK_*` of OpenCL C).
    pub fn bits(&self) -> u32 {
        sampler_bits(self.normalized, self.addressing, self.filter)
    }
}

/// The `sampler_t` bits kernels see (`CLK_*` of OpenCL C) for a sampler's properties.
pub fn sampler_bits(
    normalized: bool,
    addressing: cl_addressing_mode,
    filter: cl_filter_mode,
) -> u32 {
    use shadowcl_interpreter::image::sampler as s;
    let a = addressing.wrapping_sub(CL_ADDRESS_NONE).wrapping_mul(2);
    let f = if filter == CL_FILTER_LINEAR {
        s::FILTER_LINEAR
    } else {
        s::FILTER_NEAREST
    };
    a | f | normalized as u32
}

pub fn get_sampler(s: cl_sampler) -> Result<Ref<Sampler>, cl_int> {
    object::get::<Sampler, _>(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampler_bits_match_opencl_c() {
        let ctx = Context::new(Vec::new(), None);
        let s = Sampler {
            context: ctx,
            normalized: true,
            addressing: CL_ADDRESS_REPEAT,
            filter: CL_FILTER_LINEAR,
            properties: Vec::new(),
        };
        // CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR
        assert_eq!(s.bits(), 0x1 | 0x6 | 0x20);
    }
}
