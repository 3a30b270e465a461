//! The sampler entry points.
#![allow(clippy::missing_safety_doc)] // entry points: the OpenCL specification is the contract

use crate::api::entry::{call, call_ptr};
use crate::api::info::{properties, properties_as_passed, v, write_info};
use crate::consts::*;
use crate::core::context::{self, Context};
use crate::core::object;
use crate::core::sampler::{get_sampler, Sampler};
use crate::types::*;
use std::ffi::c_void;

fn create_sampler(
    context: cl_context,
    normalized: cl_bool,
    addressing: cl_addressing_mode,
    filter: cl_filter_mode,
    props: Vec<cl_sampler_properties>,
) -> Result<cl_sampler, cl_int> {
    let ctx = context::get(context)?;
    if normalized > 1
        || !(CL_ADDRESS_NONE..=CL_ADDRESS_MIRRORED_REPEAT).contains(&addressing)
        || !(CL_FILTER_NEAREST..=CL_FILTER_LINEAR).contains(&filter)
    {
        return Err(CL_INVALID_VALUE);
    }
    let s = object::create(Sampler {
        context: ctx,
        normalized: normalized != 0,
        addressing,
        filter,
        properties: props,
    });
    Ok(object::into_handle(s))
}

pub unsafe extern "C" fn clCreateSampler(
    context: cl_context,
    normalized_coords: cl_bool,
    addressing_mode: cl_addressing_mode,
    filter_mode: cl_filter_mode,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    call_ptr("clCreateSampler", errcode_ret, || {
        create_sampler(
            context,
            normalized_coords,
            addressing_mode,
            filter_mode,
            Vec::new(),
        )
    })
}

pub unsafe extern "C" fn clCreateSamplerWithProperties(
    context: cl_context,
    props: *const cl_sampler_properties,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    call_ptr("clCreateSamplerWithProperties", errcode_ret, || {
        context::get(context)?;
        let list = properties(props)?;
        let (mut norm, mut addr, mut filt) = (CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST);
        let mut seen = Vec::new();
        for &(name, value) in &list {
            if seen.contains(&name) {
                return Err(CL_INVALID_VALUE);
            }
            seen.push(name);
            match name as u32 {
                CL_SAMPLER_NORMALIZED_COORDS => norm = value as cl_bool,
                CL_SAMPLER_ADDRESSING_MODE => addr = value as cl_uint,
                CL_SAMPLER_FILTER_MODE => filt = value as cl_uint,
                _ => return Err(CL_INVALID_VALUE),
            }
        }
        let as_passed = properties_as_passed(props, &list);
        create_sampler(context, norm, addr, filt, as_passed)
    })
}

pub unsafe extern "C" fn clRetainSampler(s: cl_sampler) -> cl_int {
    call("clRetainSampler", || object::retain::<Sampler, _>(s))
}

pub unsafe extern "C" fn clReleaseSampler(s: cl_sampler) -> cl_int {
    call("clReleaseSampler", || object::release::<Sampler, _>(s))
}

pub unsafe extern "C" fn clGetSamplerInfo(
    s: cl_sampler,
    param_name: cl_sampler_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetSamplerInfo", || {
        let s = get_sampler(s)?;
        let answer = match param_name {
            CL_SAMPLER_REFERENCE_COUNT => v(&object::ref_count(&s)),
            CL_SAMPLER_CONTEXT => v(&object::handle::<Context>(&s.context)),
            CL_SAMPLER_NORMALIZED_COORDS => v(&(s.normalized as cl_bool)),
            CL_SAMPLER_ADDRESSING_MODE => v(&s.addressing),
            CL_SAMPLER_FILTER_MODE => v(&s.filter),
            CL_SAMPLER_PROPERTIES => v(&s.properties),
            _ => Err(CL_INVALID_VALUE),
        };
        write_info(answer, param_value_size, param_value, param_value_size_ret)
    })
}
