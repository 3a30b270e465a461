//! Image formats, sampling and instructions against hand-computed texels.

use super::*;

const RGBA_F: ImageFormat = ImageFormat {
    order: order::RGBA,
    data_type: dtype::FLOAT,
};

/// Memory of one image at launch index 1, texels as a plain byte vector.
struct Mem {
    desc: ImageDesc,
    bytes: Vec<u8>,
    loads: usize,
    outside: Vec<(i64, usize, bool)>,
}

impl TexelMem for Mem {
    fn desc(&self, image: u64) -> Option<ImageDesc> {
        (ptr::dec(image).1 == 1).then_some(self.desc)
    }
    fn load(&mut self, p: u64, n: usize) -> u64 {
        self.loads += 1;
        let o = ptr::dec(p).2 as usize;
        let mut w = [0u8; 8];
        w[..n].copy_from_slice(&self.bytes[o..o + n]);
        u64::from_le_bytes(w)
    }
    fn store(&mut self, p: u64, n: usize, v: u64) {
        let o = ptr::dec(p).2 as usize;
        self.bytes[o..o + n].copy_from_slice(&v.to_le_bytes()[..n]);
    }
    fn outside(&mut self, _: u64, offset: i64, size: usize, write: bool) {
        self.outside.push((offset, size, write));
    }
}

fn img() -> u64 {
    ptr::enc(ptr::TAG_LAUNCH, 1, 0)
}

/// A 2x2 RGBA float image whose red channel holds 0, 1 / 2, 3 (piglit's sampler.cl).
fn ramp() -> Mem {
    let desc = ImageDesc::packed(ImageDim::D2, RGBA_F, [2, 2, 1], 1).unwrap();
    let mut bytes = vec![];
    for v in [0f32, 1.0, 2.0, 3.0] {
        for c in [v, v, v, 1.0] {
            bytes.extend_from_slice(&c.to_le_bytes());
        }
    }
    Mem {
        desc,
        bytes,
        loads: 0,
        outside: vec![],
    }
}

fn red(m: &mut Mem, bits: u32, c: [f32; 2]) -> f32 {
    f32::from_bits(read(m, img(), bits, Coords::Float([c[0], c[1], 0.0]), true)[0])
}

#[test]
fn linear_filtering_matches_hand_computed_values() {
    let mut m = ramp();
    let lin = sampler::FILTER_LINEAR;
    // Unnormalized: texel centres at .5; (1.0, 0.5) is halfway between 0 and 1.
    assert_eq!(red(&mut m, lin, [0.5, 0.5]), 0.0);
    assert_eq!(red(&mut m, lin, [1.0, 0.5]), 0.5);
    assert_eq!(red(&mut m, lin, [1.0, 1.0]), 1.5);
    assert_eq!(red(&mut m, lin, [0.5, 1.0]), 1.0);
    // Normalized: the same points divided by the size.
    let n = lin | sampler::NORMALIZED;
    assert_eq!(red(&mut m, n, [0.25, 0.25]), 0.0);
    assert_eq!(red(&mut m, n, [0.5, 0.5]), 1.5);
    // Repeat wraps: u = 0 sits between texel 1 (left, wrapped) and texel 0.
    let r = n | sampler::REPEAT;
    assert_eq!(red(&mut m, r, [0.0, 0.25]), 0.5);
    assert_eq!(red(&mut m, r, [1.25, 0.25]), 0.0);
}

#[test]
fn nearest_addressing_modes() {
    let mut m = ramp();
    let cte = sampler::FILTER_NEAREST | sampler::CLAMP_TO_EDGE;
    assert_eq!(red(&mut m, cte, [-1.0, -1.0]), 0.0);
    assert_eq!(red(&mut m, cte, [3.0, -1.0]), 1.0);
    assert_eq!(red(&mut m, cte, [3.0, 3.0]), 3.0);
    assert_eq!(red(&mut m, cte, [-1.0, 3.0]), 2.0);
    // CLAMP: the border colour (RGBA has alpha: all zero), with no memory access.
    let loads = m.loads;
    let c = sampler::FILTER_NEAREST | sampler::CLAMP;
    let b = read(&mut m, img(), c, Coords::Float([5.0, 0.5, 0.0]), true);
    assert_eq!(b, [0; 4]);
    assert_eq!(m.loads, loads);
    // Normalized repeat and mirrored repeat.
    let rep = sampler::NORMALIZED | sampler::REPEAT;
    assert_eq!(red(&mut m, rep, [1.75, 0.25]), 1.0);
    assert_eq!(red(&mut m, rep, [-0.25, 0.25]), 1.0);
    let mir = sampler::NORMALIZED | sampler::MIRRORED_REPEAT;
    assert_eq!(red(&mut m, mir, [1.25, 0.25]), 1.0);
    assert_eq!(red(&mut m, mir, [-0.25, 0.25]), 0.0);
    // Out of range is reported only for NONE (undefined there) and then contained:
    // clamped, never outside the image.
    assert!(m.outside.is_empty());
    assert_eq!(red(&mut m, sampler::FILTER_NEAREST, [99.0, -7.0]), 1.0);
    let i = read(&mut m, img(), 0x10, Coords::Int([-5, 9, 0]), true);
    assert_eq!(f32::from_bits(i[0]), 2.0);
    // (99, -7) at 16 bytes per texel and 32 per row; (-5, 9) likewise.
    assert_eq!(
        m.outside,
        [(99 * 16 - 7 * 32, 16, false), (-5 * 16 + 9 * 32, 16, false)]
    );
}

#[test]
fn format_conversions_round_trip() {
    let f = |order, data_type| ImageFormat { order, data_type };
    let u8f = f(order::RGBA, dtype::UNORM_INT8);
    let raw = u8f.encode(&[0.0f32, 0.5, 1.0, 2.0].map(f32::to_bits), true);
    assert_eq!(raw, [0, 128, 255, 255]);
    let back = u8f.decode(&raw, true).map(f32::from_bits);
    assert_eq!(back, [0.0, 128.0 / 255.0, 1.0, 1.0]);
    let s8 = f(order::RGBA, dtype::SNORM_INT8);
    let raw = s8.encode(&[-1.0f32, -2.0, 0.5, 1.0].map(f32::to_bits), true);
    assert_eq!(raw, [0x81, 0x80, 64, 127]);
    assert_eq!(s8.decode(&raw, true)[1], (-1.0f32).to_bits());
    let u16f = f(order::RGBA, dtype::UNORM_INT16);
    assert_eq!(u16f.encode(&[1f32.to_bits(); 4], true)[0], 65535);
    let i8f = f(order::RGBA, dtype::SIGNED_INT8);
    let raw = i8f.encode(&[-300i32, -1, 5, 200].map(|x| x as u32), false);
    assert_eq!(raw, [0x80, 0xFF, 5, 0x7F]);
    assert_eq!(
        i8f.decode(&raw, false),
        [-128i32, -1, 5, 127].map(|x| x as u32)
    );
    let u32f = f(order::RGBA, dtype::UNSIGNED_INT32);
    let v = [0u32, 1, u32::MAX, 7];
    assert_eq!(u32f.decode(&u32f.encode(&v, false), false), v);
    let h = f(order::RGBA, dtype::HALF_FLOAT);
    let v = [0.5f32, -2.0, 65504.0, 0.25].map(f32::to_bits);
    assert_eq!(h.decode(&h.encode(&v, true), true), v);
    // BGRA swaps red and blue in memory; R has defaults 0, 0, 1 for G, B, A.
    let bgra = f(order::BGRA, dtype::UNORM_INT8);
    assert_eq!(
        bgra.encode(&[1f32, 0.0, 0.0, 1.0].map(f32::to_bits), true),
        [0, 0, 255, 255]
    );
    let r = f(order::R, dtype::FLOAT);
    assert_eq!(
        r.decode(&[2f32.to_bits() as u64, 0, 0, 0], true)
            .map(f32::from_bits),
        [2.0, 0.0, 0.0, 1.0]
    );
    assert_eq!(r.border(), [0, 0, 0, 1f32.to_bits()]);
    // sRGB: stored non-linearly, alpha linear; 0.5 linear is 188 in sRGB.
    let srgb = f(order::SRGBA, dtype::UNORM_INT8);
    let raw = srgb.encode(&[0.5f32, 0.0, 1.0, 0.5].map(f32::to_bits), true);
    assert_eq!(raw, [188, 0, 255, 128]);
    let back = srgb.decode(&raw, true).map(f32::from_bits);
    assert!((back[0] - 0.5).abs() < 0.005 && back[2] == 1.0, "{back:?}");
    assert!(!f(order::SRGBA, dtype::UNORM_INT16).is_supported());
    // Packed RGB: 565 keeps 5/6/5 bits, 101010 10 each; alpha reads as 1.
    let p565 = f(order::RGB, dtype::UNORM_SHORT_565);
    let raw = p565.encode(&[1f32, 0.5, 0.0, 0.0].map(f32::to_bits), true);
    assert_eq!(raw[0], (31 << 11) | (32 << 5));
    let back = p565.decode(&raw, true).map(f32::from_bits);
    assert_eq!(back, [1.0, 32.0 / 63.0, 0.0, 1.0]);
    let p10 = f(order::RGBX, dtype::UNORM_INT_101010);
    let raw = p10.encode(&[0f32, 1.0, 0.25, 1.0].map(f32::to_bits), true);
    assert_eq!(raw[0], (1023 << 10) | 256);
    assert_eq!(p10.element_size(), Some(4));
    assert!(!f(order::RGB, dtype::UNORM_INT8).is_supported());
    assert!(!f(order::RGBA, dtype::UNORM_SHORT_565).is_supported());
    // Formats outside the specification's combinations are refused.
    assert!(!f(order::BGRA, dtype::FLOAT).is_supported());
    assert!(!f(order::INTENSITY, dtype::SIGNED_INT8).is_supported());
    assert!(ImageFormat::all_supported().contains(&f(order::BGRA, dtype::UNORM_INT8)));
}

#[test]
fn writes_then_reads_and_queries_a_3d_image() {
    let desc = ImageDesc::packed(
        ImageDim::D3,
        ImageFormat {
            order: order::RGBA,
            data_type: dtype::UNSIGNED_INT8,
        },
        [4, 3, 2],
        1,
    )
    .unwrap();
    assert_eq!(desc.byte_len(), Some(4 * 3 * 2 * 4));
    let mut at8 = desc;
    at8.base = 8;
    assert_eq!((at8.byte_len(), at8.offset([1, 0, 0])), (Some(104), 12));
    let mut m = Mem {
        desc,
        bytes: vec![0; 96],
        loads: 0,
        outside: vec![],
    };
    write(&mut m, img(), [3, 2, 1], &[1, 2, 300, 4], false);
    assert_eq!(&m.bytes[92..96], &[1, 2, 255, 4]);
    // Out of range: reported and dropped.
    write(&mut m, img(), [4, 0, 0], &[9; 4], false);
    assert!(m.bytes[..92].iter().all(|b| *b == 0));
    assert_eq!(m.outside, [(16, 4, true)]);
    let v = read(&mut m, img(), 0x10, Coords::Int([3, 2, 1]), false);
    assert_eq!(v, [1, 2, 255, 4]);
    let mut out = [0u64; 4];
    let a = [Operand {
        lanes: &[img()],
        elem: Elem::Int(64),
    }];
    exec(&mut m, ImageOp::QuerySize, &a, Elem::Int(32), &mut out);
    assert_eq!(out, [4, 3, 2, 0]);
    exec(
        &mut m,
        ImageOp::QueryOrder,
        &a,
        Elem::Int(32),
        &mut out[..1],
    );
    assert_eq!(out[0], order::RGBA as u64);
    // A sampled image keeps its image and sampler.
    let s = combine(img(), 0x2B);
    assert_eq!(split(s), (img(), 0x2B));
}
