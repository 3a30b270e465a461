//! OpenCL.std extended instructions and numeric conversions, as pure functions on lanes.
//!
//! Values travel as 64-bit lanes: integers zero-extended from their width (signedness comes
//! from the instruction, as in SPIR-V), floats as their IEEE bit pattern in the low bits
//! (f16 in 16 bits, f32 in 32, f64 in 64), booleans as 0/1. A vector is a slice of lanes.
//! The executor owns memory-touching instructions (vload*/vstore*, printf, prefetch); every
//! other OpenCL.std instruction is evaluated here.
//!
//! Layout: [`fmt`] holds the IEEE formats and correctly rounded encoding, [`conv`] the
//! conversions, `math` the float functions (one table from `CLOp` to an `f64` function;
//! f16/f32 results are computed in f64 and rounded once), `int` the integer functions
//! (one table, computed in i128/u128 and wrapped or saturated), `vector` the geometric,
//! shuffle and select functions that are not lane-wise.

pub mod conv;
pub mod fmt;
mod int;
mod lanes;
mod math;
#[cfg(test)]
mod tests;
mod vector;

pub use conv::implied_rounding;

/// Element type of a lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Elem {
    Bool,
    /// Integer of 8, 16, 32 or 64 bits (signless, as in SPIR-V).
    Int(u8),
    /// IEEE float of 16, 32 or 64 bits.
    Float(u8),
}

/// Rounding mode of a conversion (`FPRoundingMode` decoration or OpenCL's `_rte` etc.).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Rounding {
    /// Round to nearest even.
    #[default]
    Rte,
    /// Toward zero.
    Rtz,
    /// Toward +infinity.
    Rtp,
    /// Toward -infinity.
    Rtn,
}

/// One operand: its element type and its lanes. A single lane is broadcast to every
/// result lane (OpenCL.std's scalar forms such as `fmin(floatn, float)`, `ldexp(x, int)`).
#[derive(Clone, Copy, Debug)]
pub struct LaneArgs<'a> {
    pub elem: Elem,
    pub lanes: &'a [u64],
}

/// What [`eval`] produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Produced {
    /// `out` holds the result.
    Result,
    /// `out` holds the result and `out2` the value the instruction stores through its last
    /// (pointer) operand: `modf`, `fract`, `frexp`, `remquo`, `sincos`, `lgamma_r`.
    /// The executor did not pass that pointer operand in `args`.
    ResultAndPointee,
}

/// Evaluates OpenCL.std instruction `op` (its number in the OpenCL.std grammar; see
/// `spirv::CLOp`). `result` is the result's element type and `out.len()` its lane count
/// (`out2` has the same count and the pointee's element type, which the caller knows).
/// Returns an error text naming the instruction when it is not supported.
pub fn eval(
    op: u32,
    result: Elem,
    args: &[LaneArgs<'_>],
    out: &mut [u64],
    out2: &mut [u64],
) -> Result<Produced, String> {
    lanes::dispatch(op, result, args, out, out2)
}

/// Converts one lane between element types (OpConvert*, OpUConvert, OpSConvert, OpFConvert,
/// OpSatConvert*), with the signedness of each side, saturation and rounding as decorated.
/// Float to integer without saturation follows OpenCL's rules for out-of-range values as
/// x86 does (any value is acceptable; be deterministic).
///
/// `rounding` is used as given: for an undecorated float-to-integer conversion pass
/// [`Rounding::Rtz`] (see [`implied_rounding`]), as SPIR-V and OpenCL C round toward zero there.
pub fn convert(
    value: u64,
    from: Elem,
    from_signed: bool,
    to: Elem,
    to_signed: bool,
    saturate: bool,
    rounding: Rounding,
) -> u64 {
    conv::convert(value, from, from_signed, to, to_signed, saturate, rounding)
}
